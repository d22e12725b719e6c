#!/bin/sh
# Stand-in runner: runs the x86-64 program natively, replacing the shell.
# Every guest test must pass with it.
exec "$@"
