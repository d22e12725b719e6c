// Pointer-chasing data structures on the heap: a singly linked list built
// by push-front and append, reversed in place, merge-sorted, deduplicated;
// a doubly linked list used as a deque; and a chained hash table keyed by
// strings, all freed at the end.
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guest_common.h"

struct node {
  int value;
  struct node *next;
};

static struct node *push(struct node *head, int v) {
  struct node *n = malloc(sizeof *n);
  n->value = v;
  n->next = head;
  return n;
}

static struct node *reverse(struct node *h) {
  struct node *prev = NULL;
  while (h) {
    struct node *next = h->next;
    h->next = prev;
    prev = h;
    h = next;
  }
  return prev;
}

static struct node *merge(struct node *a, struct node *b) {
  struct node head = {0, NULL}, *tail = &head;
  while (a && b) {
    struct node **pick = a->value <= b->value ? &a : &b;
    tail->next = *pick;
    tail = *pick;
    *pick = (*pick)->next;
  }
  tail->next = a ? a : b;
  return head.next;
}

static struct node *sort(struct node *h) {
  if (!h || !h->next) return h;
  struct node *slow = h, *fast = h->next;
  while (fast && fast->next) {
    slow = slow->next;
    fast = fast->next->next;
  }
  struct node *second = slow->next;
  slow->next = NULL;
  return merge(sort(h), sort(second));
}

static void summary(const char *label, const struct node *h) {
  uint64_t hash = FNV_INIT;
  int n = 0;
  printf("%s:", label);
  for (; h; h = h->next, n++) {
    hash = fnv1a_u64(hash, (uint64_t)h->value);
    if (n < 8) printf(" %d", h->value);
  }
  printf(" ... n=%d hash %016" PRIx64 "\n", n, hash);
}

struct dnode {
  long v;
  struct dnode *prev, *next;
};

struct entry {
  char *key;
  int count;
  struct entry *next;
};

static unsigned str_hash(const char *s) {
  unsigned h = 5381;
  while (*s) h = h * 33 + (unsigned char)*s++;
  return h;
}

int main(void) {
  rng_seed(17);
  struct node *list = NULL;
  for (int i = 0; i < 20000; i++) list = push(list, (int)rng_below(5000));
  summary("built", list);
  list = reverse(list);
  summary("reversed", list);
  list = sort(list);
  summary("sorted", list);
  for (struct node *p = list; p && p->next;) {
    if (p->next->value == p->value) {
      struct node *dup = p->next;
      p->next = dup->next;
      free(dup);
    } else {
      p = p->next;
    }
  }
  summary("unique", list);
  while (list) {
    struct node *next = list->next;
    free(list);
    list = next;
  }

  // Deque: push at both ends, pop from both ends.
  struct dnode sentinel = {0, &sentinel, &sentinel};
  uint64_t popped = 0;
  for (int i = 0; i < 30000; i++) {
    uint32_t r = rng_below(4);
    if (r < 2) {
      struct dnode *n = malloc(sizeof *n);
      n->v = i;
      struct dnode *after = r == 0 ? &sentinel : sentinel.prev;
      n->prev = after;
      n->next = after->next;
      after->next->prev = n;
      after->next = n;
    } else if (sentinel.next != &sentinel) {
      struct dnode *n = r == 2 ? sentinel.next : sentinel.prev;
      n->prev->next = n->next;
      n->next->prev = n->prev;
      popped = popped * 31 + (uint64_t)n->v;
      free(n);
    }
  }
  int left = 0;
  while (sentinel.next != &sentinel) {
    struct dnode *n = sentinel.next;
    sentinel.next = n->next;
    free(n);
    left++;
  }
  printf("deque popped-hash %016" PRIx64 " left %d\n", popped, left);

  // Word counts in a chained hash table.
  enum { BUCKETS = 257 };
  struct entry *table[BUCKETS] = {0};
  static const char *syll[] = {"ka", "lo", "mi", "ne", "ru", "sa", "to"};
  for (int i = 0; i < 20000; i++) {
    char word[16];
    snprintf(word, sizeof word, "%s%s%s", syll[rng_below(7)], syll[rng_below(7)], i % 3 ? "" : syll[rng_below(7)]);
    unsigned b = str_hash(word) % BUCKETS;
    struct entry *e = table[b];
    while (e && strcmp(e->key, word) != 0) e = e->next;
    if (!e) {
      e = malloc(sizeof *e);
      e->key = strdup(word);
      e->count = 0;
      e->next = table[b];
      table[b] = e;
    }
    e->count++;
  }
  int distinct = 0, best = 0;
  char best_word[16] = "";
  for (int b = 0; b < BUCKETS; b++) {
    while (table[b]) {
      struct entry *e = table[b];
      distinct++;
      if (e->count > best || (e->count == best && strcmp(e->key, best_word) < 0)) {
        best = e->count;
        snprintf(best_word, sizeof best_word, "%s", e->key);
      }
      table[b] = e->next;
      free(e->key);
      free(e);
    }
  }
  printf("words distinct %d most frequent %s x%d\n", distinct, best_word, best);
  return 0;
}
