// Tokenising and span functions: strtok, strtok_r, strsep, strspn, strcspn,
// strpbrk, plus the copying family strcpy/stpcpy/strncpy/strcat/strncat,
// strdup/strndup and strcasecmp, printing every token and length.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int sign(int x) { return (x > 0) - (x < 0); }

// Truncating strncpy/strncat is what this program tests.
#pragma GCC diagnostic ignored "-Wstringop-truncation"

static void tokens(const char *text, const char *delims) {
  char *copy = strdup(text);
  printf("strtok(\"%s\", \"%s\"):", text, delims);
  for (char *t = strtok(copy, delims); t; t = strtok(NULL, delims)) printf(" [%s]", t);
  printf("\n");
  free(copy);
}

static void nested_tokens(const char *text) {
  char *copy = strdup(text), *outer_save, *inner_save;
  for (char *line = strtok_r(copy, ";", &outer_save); line; line = strtok_r(NULL, ";", &outer_save)) {
    printf("  record:");
    for (char *f = strtok_r(line, "=, ", &inner_save); f; f = strtok_r(NULL, "=, ", &inner_save))
      printf(" <%s>", f);
    printf("\n");
  }
  free(copy);
}

static void sep_tokens(const char *text) {
  char *copy = strdup(text), *cursor = copy, *field;
  printf("strsep:");
  while ((field = strsep(&cursor, ",:")) != NULL) printf(" '%s'", field);
  printf("\n");
  free(copy);
}

int main(void) {
  tokens("  hello   world  ", " ");
  tokens("a,b,,c,", ",");
  tokens(",,,", ",");
  tokens("", ",");
  tokens("path/to//some/file.txt", "/.");
  tokens("tabs\tand\nnewlines\r\nmixed", " \t\r\n");
  nested_tokens("name=ada, year=1815;name=alan, year=1912;;empty=");
  sep_tokens("a,b,,c:d:");
  sep_tokens("");

  static const char *subjects[] = {"", "abc", "aaabbbccc", "123abc456", "   lead", "xyz",
                                   "0123456789abcdef0123456789abcdef0123456789"};
  static const char *sets[] = {"", "a", "abc", "0123456789", " ", "cba987"};
  for (size_t i = 0; i < sizeof subjects / sizeof subjects[0]; i++) {
    printf("%-12s", subjects[i]);
    for (size_t j = 0; j < sizeof sets / sizeof sets[0]; j++) {
      const char *p = strpbrk(subjects[i], sets[j]);
      printf(" %zu/%zu/%ld", strspn(subjects[i], sets[j]), strcspn(subjects[i], sets[j]),
             p ? (long)(p - subjects[i]) : -1L);
    }
    printf("\n");
  }

  char buf[128];
  char *end = stpcpy(buf, "alpha");
  end = stpcpy(end, "-beta");
  printf("stpcpy %s len %ld\n", buf, (long)(end - buf));
  strcat(buf, "+gamma");
  strncat(buf, "0123456789", 4);
  printf("strcat %s\n", buf);
  char fixed[12];
  memset(fixed, 'X', sizeof fixed);
  strncpy(fixed, "short", sizeof fixed);
  printf("strncpy pad:");
  for (size_t i = 0; i < sizeof fixed; i++) printf(" %02x", (unsigned char)fixed[i]);
  printf("\n");
  memset(fixed, 'X', sizeof fixed);
  strncpy(fixed, "exactly-twelve-chars", sizeof fixed);
  printf("strncpy trunc: %.12s\n", fixed);
  char *d = strndup("truncate me please", 8);
  printf("strndup [%s] %zu\n", d, strlen(d));
  free(d);
  printf("strcasecmp %d %d %d %d\n", sign(strcasecmp("Hello", "hELLO")),
         sign(strcasecmp("abc", "ABD")), sign(strncasecmp("ABCx", "abcy", 3)),
         sign(strcasecmp("Zeta", "alpha")));

  // Long strings: the span functions use a 256-entry table on x86.
  static char longstr[4000];
  for (int i = 0; i < 3999; i++) longstr[i] = (char)('a' + (i % 3));
  longstr[3999] = 0;
  longstr[3500] = 'q';
  printf("long spn %zu cspn %zu\n", strspn(longstr, "abc"), strcspn(longstr, "qz"));
  return 0;
}
