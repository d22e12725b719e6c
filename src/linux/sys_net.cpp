// Sockets.  Every structure they carry (sockaddr of each family, msghdr,
// mmsghdr, cmsghdr with SCM_RIGHTS and SCM_CREDENTIALS, linger, timeval,
// ucred) and every flag and option number (SOCK_NONBLOCK, SOCK_CLOEXEC,
// SOL_SOCKET's asm-generic values) is the same on x86-64 and AArch64, so
// the calls pass; the blocking ones wait interruptibly like every pass().
#include "linux/sys_internal.h"

namespace phybin::sys {

void register_net_syscalls(SyscallTable& t) {
  t.pass(X86_NR_socket, SYS_socket);
  t.pass(X86_NR_socketpair, SYS_socketpair);
  t.pass(X86_NR_bind, SYS_bind);
  t.pass(X86_NR_listen, SYS_listen);
  t.pass(X86_NR_accept, SYS_accept);
  t.pass(X86_NR_accept4, SYS_accept4);
  t.pass(X86_NR_connect, SYS_connect);
  t.pass(X86_NR_getsockname, SYS_getsockname);
  t.pass(X86_NR_getpeername, SYS_getpeername);
  t.pass(X86_NR_sendto, SYS_sendto);
  t.pass(X86_NR_recvfrom, SYS_recvfrom);
  t.pass(X86_NR_sendmsg, SYS_sendmsg);
  t.pass(X86_NR_recvmsg, SYS_recvmsg);
  t.pass(X86_NR_sendmmsg, SYS_sendmmsg);
  t.pass(X86_NR_recvmmsg, SYS_recvmmsg);
  t.pass(X86_NR_shutdown, SYS_shutdown);
  t.pass(X86_NR_setsockopt, SYS_setsockopt);
  t.pass(X86_NR_getsockopt, SYS_getsockopt);
}

}  // namespace phybin::sys
