// Balanced and unbalanced binary search trees on the heap: an AVL tree
// with insertions and deletions (rotations everywhere), in-order,
// pre-order and level-order traversals, height and size checks; and a
// plain BST that degenerates on sorted input (deep recursion).
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "guest_common.h"

struct avl {
  int key, height;
  struct avl *left, *right;
};

static int height(const struct avl *t) { return t ? t->height : 0; }
static int max(int a, int b) { return a > b ? a : b; }
static void update(struct avl *t) { t->height = 1 + max(height(t->left), height(t->right)); }

static struct avl *rotate_right(struct avl *y) {
  struct avl *x = y->left;
  y->left = x->right;
  x->right = y;
  update(y);
  update(x);
  return x;
}

static struct avl *rotate_left(struct avl *x) {
  struct avl *y = x->right;
  x->right = y->left;
  y->left = x;
  update(x);
  update(y);
  return y;
}

static struct avl *balance(struct avl *t) {
  update(t);
  int bf = height(t->left) - height(t->right);
  if (bf > 1) {
    if (height(t->left->left) < height(t->left->right)) t->left = rotate_left(t->left);
    return rotate_right(t);
  }
  if (bf < -1) {
    if (height(t->right->right) < height(t->right->left)) t->right = rotate_right(t->right);
    return rotate_left(t);
  }
  return t;
}

static struct avl *insert(struct avl *t, int key) {
  if (!t) {
    t = calloc(1, sizeof *t);
    t->key = key;
    t->height = 1;
    return t;
  }
  if (key < t->key) t->left = insert(t->left, key);
  else if (key > t->key) t->right = insert(t->right, key);
  return balance(t);
}

static struct avl *remove_min(struct avl *t, struct avl **min) {
  if (!t->left) {
    *min = t;
    return t->right;
  }
  t->left = remove_min(t->left, min);
  return balance(t);
}

static struct avl *erase(struct avl *t, int key) {
  if (!t) return NULL;
  if (key < t->key) t->left = erase(t->left, key);
  else if (key > t->key) t->right = erase(t->right, key);
  else {
    struct avl *l = t->left, *r = t->right, *m;
    free(t);
    if (!r) return l;
    r = remove_min(r, &m);
    m->left = l;
    m->right = r;
    return balance(m);
  }
  return balance(t);
}

static int size(const struct avl *t) { return t ? 1 + size(t->left) + size(t->right) : 0; }

static int check(const struct avl *t, long lo, long hi) {
  if (!t) return 1;
  int bf = height(t->left) - height(t->right);
  return t->key > lo && t->key < hi && bf >= -1 && bf <= 1 && t->height == 1 + max(height(t->left), height(t->right)) &&
         check(t->left, lo, t->key) && check(t->right, t->key, hi);
}

static uint64_t inorder(const struct avl *t, uint64_t h) {
  if (!t) return h;
  h = inorder(t->left, h);
  h = fnv1a_u64(h, (uint64_t)t->key);
  return inorder(t->right, h);
}

static uint64_t preorder(const struct avl *t, uint64_t h) {
  if (!t) return h;
  h = fnv1a_u64(h, (uint64_t)t->key);
  return preorder(t->right, preorder(t->left, h));
}

static void level_order(struct avl *t, int levels) {
  struct avl **queue = malloc(sizeof *queue * 64);
  int head = 0, tail = 0;
  queue[tail++] = t;
  for (int level = 0; level < levels && head < tail; level++) {
    int end = tail;
    printf("level %d:", level);
    for (; head < end; head++) {
      printf(" %d", queue[head]->key);
      if (queue[head]->left && tail < 64) queue[tail++] = queue[head]->left;
      if (queue[head]->right && tail < 64) queue[tail++] = queue[head]->right;
    }
    printf("\n");
  }
  free(queue);
}

static void free_tree(struct avl *t) {
  if (!t) return;
  free_tree(t->left);
  free_tree(t->right);
  free(t);
}

int main(void) {
  struct avl *t = NULL;
  rng_seed(21);
  for (int i = 0; i < 20000; i++) t = insert(t, (int)rng_below(100000));
  printf("avl size %d height %d valid %d\n", size(t), height(t), check(t, -1, 1000000));
  printf("inorder %016" PRIx64 " preorder %016" PRIx64 "\n", inorder(t, FNV_INIT), preorder(t, FNV_INIT));
  level_order(t, 4);
  for (int i = 0; i < 100000; i += 3) t = erase(t, i);
  printf("after erase size %d height %d valid %d\n", size(t), height(t), check(t, -1, 1000000));
  printf("inorder %016" PRIx64 " preorder %016" PRIx64 "\n", inorder(t, FNV_INIT), preorder(t, FNV_INIT));
  free_tree(t);
  t = NULL;
  for (int i = 0; i < 4096; i++) t = insert(t, i);  // sorted input stays balanced
  printf("sorted insert height %d valid %d\n", height(t), check(t, -1, 1000000));
  level_order(t, 3);
  free_tree(t);
  return 0;
}
