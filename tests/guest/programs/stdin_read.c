// Reading standard input (the test feeds stdin_read.stdin): a header line
// with fgets, numbers with scanf until a sentinel, then the rest byte by
// byte with getchar, counting lines, words and bytes, and a checksum of
// every byte; reading at EOF must keep returning EOF.
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  char header[128];
  if (!fgets(header, sizeof header, stdin)) {
    printf("no input\n");
    return 1;
  }
  header[strcspn(header, "\n")] = 0;
  printf("header [%s]\n", header);
  long long sum = 0, count = 0, minv = 0, maxv = 0;
  double fsum = 0;
  for (;;) {
    char word[64];
    if (scanf("%63s", word) != 1) break;
    if (strcmp(word, "END") == 0) break;
    long long v;
    double d;
    if (sscanf(word, "%lld", &v) == 1 && !strchr(word, '.')) {
      if (count == 0 || v < minv) minv = v;
      if (count == 0 || v > maxv) maxv = v;
      sum += v;
      count++;
    } else if (sscanf(word, "%lf", &d) == 1) {
      fsum += d;
    }
  }
  printf("integers %lld sum %lld min %lld max %lld; float sum %.17g\n", count, sum, minv, maxv, fsum);
  long lines = 0, words = 0, bytes = 0, upper = 0;
  uint32_t hash = 2166136261u;
  int c, in_word = 0;
  while ((c = getchar()) != EOF) {
    bytes++;
    hash = (hash ^ (uint32_t)c) * 16777619u;
    if (c == '\n') lines++;
    if (isupper(c)) upper++;
    if (isspace(c)) in_word = 0;
    else if (!in_word) {
      in_word = 1;
      words++;
    }
  }
  printf("rest: lines %ld words %ld bytes %ld upper %ld hash %08" PRIx32 "\n", lines, words, bytes, upper, hash);
  printf("eof again %d %d feof %d\n", getchar() == EOF, fgetc(stdin) == EOF, feof(stdin) != 0);
  return 0;
}
