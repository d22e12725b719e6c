// File I/O in a private temporary directory (mkdtemp under /tmp): stdio
// writes and reads (fwrite/fread/fprintf/fgets/fseek/ftell/ungetc), POSIX
// open/pread/pwrite/lseek/ftruncate/O_APPEND, stat and fstat fields that do
// not depend on the file system, rename, link, unlink, mkdir, a sorted
// directory listing, and removal of everything.  Prints no paths.
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static const char *in_dir(const char *name) {
  static char path[128];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return path;
}

static void show_stat(const char *name) {
  struct stat st;
  if (stat(in_dir(name), &st) != 0) {
    printf("stat %s: missing\n", name);
    return;
  }
  // A directory's size depends on the file system: print it for files only.
  printf("stat %s: size %lld %s mode %03o nlink %lu\n", name, S_ISREG(st.st_mode) ? (long long)st.st_size : -1LL,
         S_ISREG(st.st_mode) ? "file" : S_ISDIR(st.st_mode) ? "dir" : "other", (unsigned)(st.st_mode & 0777),
         (unsigned long)st.st_nlink);
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void list_dir(void) {
  DIR *d = opendir(dir);
  char *names[32];
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL && n < 32) names[n++] = strdup(e->d_name);
  closedir(d);
  qsort(names, (size_t)n, sizeof *names, cmp_names);
  printf("listing:");
  for (int i = 0; i < n; i++) {
    printf(" %s", names[i]);
    free(names[i]);
  }
  printf("\n");
}

int main(void) {
  umask(022);
  strcpy(dir, "/tmp/phybin-guest-XXXXXX");
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  FILE *f = fopen(in_dir("data.txt"), "w");
  for (int i = 0; i < 100; i++) fprintf(f, "line %03d: %-4s\n", i, i % 2 ? "odd" : "even");  // 15 bytes
  long pos = ftell(f);
  fclose(f);
  printf("wrote text, ftell %ld\n", pos);
  show_stat("data.txt");

  f = fopen(in_dir("data.txt"), "r");
  char line[64];
  int lines = 0;
  while (fgets(line, sizeof line, f)) lines++;
  printf("read %d lines, feof %d\n", lines, feof(f) != 0);
  fseek(f, 15 * 3, SEEK_SET);
  fgets(line, sizeof line, f);
  printf("at 45: %s", line);
  fseek(f, -15, SEEK_END);
  fgets(line, sizeof line, f);
  printf("last: %s", line);
  fseek(f, 0, SEEK_SET);
  int c = fgetc(f);
  ungetc('L', f);
  fgets(line, 6, f);
  printf("first char %c, after ungetc: %s ftell %ld\n", c, line, ftell(f));
  fclose(f);

  // Binary data through fwrite/fread with a seek back and overwrite.
  f = fopen(in_dir("blob.bin"), "w+b");
  unsigned int values[1000];
  for (int i = 0; i < 1000; i++) values[i] = (unsigned)i * 2654435761u;
  printf("fwrite %zu\n", fwrite(values, sizeof values[0], 1000, f));
  fseek(f, 400, SEEK_SET);
  unsigned int marker = 0xabcdef01;
  fwrite(&marker, sizeof marker, 1, f);
  rewind(f);
  unsigned int back[1000];
  size_t got = fread(back, sizeof back[0], 1000, f);
  printf("fread %zu values[100] %08x back[100] %08x back[999] %08x\n", got, values[100], back[100], back[999]);
  printf("fread at eof %zu\n", fread(back, 1, 10, f));
  fclose(f);
  show_stat("blob.bin");

  // POSIX calls.
  int fd = open(in_dir("raw"), O_CREAT | O_RDWR | O_TRUNC, 0640);
  printf("write %zd\n", write(fd, "0123456789abcdef", 16));
  printf("pwrite %zd\n", pwrite(fd, "XY", 2, 4));
  char buf[32] = {0};
  printf("pread %zd [%.16s]\n", pread(fd, buf, sizeof buf, 0), buf);
  long long end = lseek(fd, 0, SEEK_END);
  long long cur = lseek(fd, -5, SEEK_CUR);
  printf("lseek end %lld cur-5 %lld\n", end, cur);
  memset(buf, 0, sizeof buf);
  printf("read %zd [%s]\n", read(fd, buf, 3), buf);
  ftruncate(fd, 6);
  struct stat st;
  fstat(fd, &st);
  printf("fstat after truncate size %lld mode %03o\n", (long long)st.st_size, (unsigned)(st.st_mode & 0777));
  close(fd);
  fd = open(in_dir("raw"), O_WRONLY | O_APPEND);
  write(fd, "++", 2);
  close(fd);
  fd = open(in_dir("raw"), O_RDONLY);
  memset(buf, 0, sizeof buf);
  printf("after append %zd [%s]\n", read(fd, buf, sizeof buf - 1), buf);
  close(fd);
  printf("open missing: %d\n", open(in_dir("nope"), O_RDONLY) < 0);
  int readable = access(in_dir("raw"), R_OK), executable = access(in_dir("raw"), X_OK);
  printf("access raw R %d X %d\n", readable, executable);

  mkdir(in_dir("sub"), 0750);
  show_stat("sub");
  char from[128];
  snprintf(from, sizeof from, "%s", in_dir("data.txt"));
  printf("rename %d\n", rename(from, in_dir("renamed.txt")));
  snprintf(from, sizeof from, "%s", in_dir("blob.bin"));
  printf("link %d\n", link(from, in_dir("blob.link")));
  show_stat("blob.bin");
  show_stat("data.txt");
  show_stat("renamed.txt");
  list_dir();

  int u1 = unlink(in_dir("renamed.txt")), u2 = unlink(in_dir("blob.bin"));
  int u3 = unlink(in_dir("blob.link")), u4 = unlink(in_dir("raw"));
  printf("unlink %d %d %d %d\n", u1, u2, u3, u4);
  printf("unlink again %d\n", unlink(in_dir("raw")));
  printf("rmdir %d\n", rmdir(in_dir("sub")));
  list_dir();
  printf("rmdir top %d\n", rmdir(dir));
  printf("gone %d\n", access(dir, F_OK) != 0);
  return 0;
}
