// An AArch64 stand-in for libamdhip64.so.6 that answers hipGetProcAddress
// as ROCm 6 does on a machine with a GPU (the real one, without a GPU,
// answers hipErrorNoDevice first): it hands out its own exports, and for
// hipGetDeviceProperties at version 600 or later the R0600 function, the
// name ROCm 6's headers use.  And a graph's host nodes, whose functions
// a launch runs on a thread of the runtime's own, as ROCm does.  Only
// what hip6_proc_address.c and hip6_graph_host.c call.
#include <pthread.h>
#include <stdint.h>
#include <string.h>

typedef int hipError_t;
enum { kSuccess = 0, kInvalidValue = 1, kNotFound = 500 };
enum { kSymbolFound = 0, kSymbolNotFound = 1, kVersionNotSufficient = 2 };

hipError_t hipRuntimeGetVersion(int *version) {
  if (!version) return kInvalidValue;
  *version = 60443484;
  return kSuccess;
}

// The record is the guest's hipDeviceProp_t; its first field is the name.
hipError_t hipGetDevicePropertiesR0600(char *prop, int device) {
  if (!prop || device != 0) return kInvalidValue;
  strcpy(prop, "stand-in gfx1030");
  return kSuccess;
}

hipError_t hipGetProcAddress(const char *symbol, void **fn, int version, uint64_t flags, int *status) {
  (void)flags;
  if (!symbol || !fn) return kInvalidValue;
  *fn = NULL;
  if (strcmp(symbol, "hipRuntimeGetVersion") == 0) {
    *fn = (void *)hipRuntimeGetVersion;
  } else if (strcmp(symbol, "hipGetDeviceProperties") == 0) {
    if (version < 600) {
      if (status) *status = kVersionNotSufficient;
      return kNotFound;
    }
    *fn = (void *)hipGetDevicePropertiesR0600;
  } else {
    if (status) *status = kSymbolNotFound;
    return kNotFound;
  }
  if (status) *status = kSymbolFound;
  return kSuccess;
}

// Graphs: one graph of at most four host nodes; a node is its index + 1.
typedef struct {
  void (*fn)(void *);
  void *data;
} HostNode;
static HostNode nodes[4];
static int node_count;

hipError_t hipGraphCreate(void **graph, unsigned flags) {
  if (!graph || flags) return kInvalidValue;
  *graph = nodes;
  node_count = 0;
  return kSuccess;
}

hipError_t hipGraphAddHostNode(uintptr_t *node, void *graph, const void *deps, size_t ndeps, const HostNode *params) {
  (void)deps;
  if (!node || graph != nodes || ndeps || !params || !params->fn || node_count == 4) return kInvalidValue;
  nodes[node_count] = *params;
  *node = (uintptr_t)++node_count;
  return kSuccess;
}

hipError_t hipGraphHostNodeGetParams(uintptr_t node, HostNode *params) {
  if (node == 0 || node > (uintptr_t)node_count || !params) return kInvalidValue;
  *params = nodes[node - 1];
  return kSuccess;
}

hipError_t hipGraphHostNodeSetParams(uintptr_t node, const HostNode *params) {
  if (node == 0 || node > (uintptr_t)node_count || !params || !params->fn) return kInvalidValue;
  nodes[node - 1] = *params;
  return kSuccess;
}

// hipGraphNodeParams: a node of any type; a host node's parameters sit in
// the union when its type is hipGraphNodeTypeHost (3).
typedef struct {
  int type;
  int reserved0[3];
  union {
    long long reserved1[29];
    HostNode host;
  };
  long long reserved2;
} GraphNodeParams;
_Static_assert(sizeof(GraphNodeParams) == 256, "hipGraphNodeParams is 256 bytes");

hipError_t hipGraphAddNode(uintptr_t *node, void *graph, const void *deps, size_t ndeps, GraphNodeParams *params) {
  if (!params) return kInvalidValue;
  if (params->type != 3) {  // the stand-in knows host nodes only: says what it found where one's function goes
    params->reserved2 = params->reserved1[0];
    return kInvalidValue;
  }
  return hipGraphAddHostNode(node, graph, deps, ndeps, &params->host);
}

hipError_t hipGraphInstantiate(void **exec, void *graph, void *error_node, char *log, size_t log_size) {
  (void)error_node, (void)log, (void)log_size;
  if (!exec || graph != nodes) return kInvalidValue;
  *exec = nodes;
  return kSuccess;
}

static void *run_nodes(void *unused) {
  (void)unused;
  for (int i = 0; i < node_count; ++i) nodes[i].fn(nodes[i].data);
  return NULL;
}

// The nodes run on a thread of the runtime's; the launch returns when
// they are done (ROCm returns at once, and hipStreamSynchronize waits).
hipError_t hipGraphLaunch(void *exec, void *stream) {
  (void)stream;
  pthread_t runner;
  if (exec != nodes || pthread_create(&runner, NULL, run_nodes, NULL) != 0) return kInvalidValue;
  pthread_join(runner, NULL);
  return kSuccess;
}
