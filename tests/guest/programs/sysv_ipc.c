// System V IPC as programs use it: a shared memory segment attached twice
// (both views see each other's writes), by a forked child too, shown in
// /proc/self/maps while attached and gone after shmdt, IPC_STAT's size and
// attach count, SHM_RND rounding to x86-64's 4 KiB, and code executed from
// an SHM_EXEC segment; a semaphore set (SETVAL, semop, GETVAL, IPC_STAT's
// count and times, whose x86-64 struct has padding AArch64's lacks); a
// message queue (types, IPC_NOWAIT, IPC_STAT).  IDs and addresses differ
// between runs and are not printed.
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

union semun {
  int val;
  struct semid_ds* buf;
  unsigned short* array;
};

static int maps_mention(const char* what) {
  FILE* f = fopen("/proc/self/maps", "r");
  char line[512];
  int found = 0;
  while (f && fgets(line, sizeof line, f))
    if (strstr(line, what)) ++found;
  if (f) fclose(f);
  return found;
}

static void shared_memory(void) {
  const key_t key = (key_t)(0x50480000 | (getpid() & 0xffff));
  int id = shmget(key, 3 * 4096 + 100, IPC_CREAT | IPC_EXCL | 0600);
  if (id < 0) {
    printf("shmget failed: %s\n", strerror(errno));
    return;
  }
  char* a = shmat(id, NULL, 0);
  char* b = shmat(id, NULL, 0);
  if (a == (char*)-1 || b == (char*)-1) {
    printf("shmat failed\n");
    return;
  }
  printf("two attachments at different addresses: %d\n", a != b);
  printf("below 2^47: %d\n", (uintptr_t)a < ((uintptr_t)1 << 47) && (uintptr_t)b < ((uintptr_t)1 << 47));
  strcpy(a + 4096 * 3, "written through the first");
  printf("seen through the second: %s\n", b + 4096 * 3);
  char sysv[32];
  snprintf(sysv, sizeof sysv, "/SYSV%08x", (unsigned)key);
  printf("maps entries while attached: %d\n", maps_mention(sysv));
  struct shmid_ds ds;
  shmctl(id, IPC_STAT, &ds);
  printf("IPC_STAT: size %zu, attached %lu, mode %o\n", (size_t)ds.shm_segsz, (unsigned long)ds.shm_nattch,
         ds.shm_perm.mode & 0777);
  pid_t child = fork();
  if (child == 0) {
    char* c = shmat(id, NULL, 0);
    strcpy(c, "from the child");
    shmdt(c);
    _exit(0);
  }
  waitpid(child, NULL, 0);
  printf("after the child: %s\n", a);
  // SHM_RND: an address 4 KiB past a 16 KiB boundary stays where it is
  // on x86-64 (SHMLBA is the page size there).
  char* hole = mmap(NULL, 0x20000, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  munmap(hole, 0x20000);
  char* place = (char*)(((uintptr_t)hole + 0x4000) & ~(uintptr_t)0x3fff) + 0x1000 + 123;
  char* c = shmat(id, place, SHM_RND);
  printf("SHM_RND: %s\n", c == (char*)-1 ? strerror(errno) : c == place - 123 ? "rounded to 4 KiB" : "elsewhere");
  if (c != (char*)-1) shmdt(c);
  shmdt(b);
  shmdt(a);
  printf("maps entries after shmdt: %d\n", maps_mention(sysv));
  // Code in a segment attached with SHM_EXEC: mov eax, 42; ret.
  char* code = shmat(id, NULL, SHM_EXEC);
  if (code != (char*)-1) {
    static const unsigned char ret42[] = {0xb8, 0x2a, 0x00, 0x00, 0x00, 0xc3};
    memcpy(code, ret42, sizeof ret42);
    int (*fn)(void) = (int (*)(void))code;
    printf("code from SHM_EXEC returns %d\n", fn());
    code[1] = 7;  // changed through the segment: the next call sees it
    printf("after a change it returns %d\n", fn());
    shmdt(code);
  } else {
    printf("SHM_EXEC: %s\n", strerror(errno));
  }
  shmctl(id, IPC_RMID, NULL);
}

static void semaphores(void) {
  int id = semget(IPC_PRIVATE, 3, IPC_CREAT | 0600);
  if (id < 0) {
    printf("semget failed: %s\n", strerror(errno));
    return;
  }
  union semun arg = {.val = 5};
  semctl(id, 1, SETVAL, arg);
  struct sembuf ops[2] = {{1, -2, 0}, {2, 3, 0}};
  semop(id, ops, 2);
  printf("GETVAL: %d %d %d\n", semctl(id, 0, GETVAL), semctl(id, 1, GETVAL), semctl(id, 2, GETVAL));
  struct sembuf would_block = {0, -1, IPC_NOWAIT};
  printf("semop that would block: %s\n", semop(id, &would_block, 1) < 0 ? strerror(errno) : "went through");
  struct semid_ds ds;
  memset(&ds, 0xa5, sizeof ds);
  arg.buf = &ds;
  semctl(id, 0, IPC_STAT, arg);
  const time_t now = time(NULL);
  printf("IPC_STAT: %lu semaphores, mode %o, semop time %s, change time %s\n", (unsigned long)ds.sem_nsems,
         ds.sem_perm.mode & 0777, now - ds.sem_otime < 60 ? "recent" : "wrong",
         now - ds.sem_ctime < 60 ? "recent" : "wrong");
  ds.sem_perm.mode = 0640;
  semctl(id, 0, IPC_SET, arg);
  memset(&ds, 0, sizeof ds);
  semctl(id, 0, IPC_STAT, arg);
  printf("after IPC_SET: mode %o, %lu semaphores\n", ds.sem_perm.mode & 0777, (unsigned long)ds.sem_nsems);
  semctl(id, 0, IPC_RMID);
}

struct message {
  long type;
  char text[32];
};

static void message_queue(void) {
  int id = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
  if (id < 0) {
    printf("msgget failed: %s\n", strerror(errno));
    return;
  }
  struct message m = {2, "second type"};
  msgsnd(id, &m, strlen(m.text) + 1, 0);
  m.type = 1;
  strcpy(m.text, "first type");
  msgsnd(id, &m, strlen(m.text) + 1, 0);
  struct msqid_ds ds;
  msgctl(id, IPC_STAT, &ds);
  printf("queued: %lu messages\n", (unsigned long)ds.msg_qnum);
  struct message in;
  ssize_t n = msgrcv(id, &in, sizeof in.text, 1, 0);
  printf("type 1: %zd bytes, %s\n", n, in.text);
  n = msgrcv(id, &in, sizeof in.text, 0, 0);
  printf("next: type %ld, %s\n", in.type, in.text);
  n = msgrcv(id, &in, sizeof in.text, 0, IPC_NOWAIT);
  printf("empty queue: %s\n", n < 0 ? strerror(errno) : "a message");
  msgctl(id, IPC_RMID, NULL);
}

int main(void) {
  shared_memory();
  semaphores();
  message_queue();
  return 0;
}
