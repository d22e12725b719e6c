// Starting and ending guest threads (guest_threads.cpp): the Linux layer's
// ProcessConfig::start_thread and exit_thread.
#pragma once

#include <cstdint>

#include "common/guest_state.h"
#include "linux/syscalls.h"

namespace phybin::runtime {

// clone with CLONE_THREAD from the guest thread of `parent`: a new host
// thread runs the child.  Returns its TID once CLONE_PARENT_SETTID and
// CLONE_CHILD_SETTID are done, or -EAGAIN.
int64_t start_guest_thread(GuestState& parent, const sys::ThreadStart& start);
// exit of the guest thread `st`: returns when it is the last one (the
// process ends), else leaves for good (GuestThread::run returns).
void exit_guest_thread(GuestState& st);
// The main guest thread's run() returned (it called exit while other
// threads go on): the kernel's clear_child_tid, then the host thread ends
// without ending the process.
[[noreturn]] void finish_main_thread(GuestState& st);

}  // namespace phybin::runtime
