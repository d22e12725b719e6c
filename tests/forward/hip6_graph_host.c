// A graph's host nodes: guest functions inside a record the runtime keeps
// (hipHostNodeParams.fn), run by a graph launch on a thread of the
// runtime's own.  The runtime gets copies of the records with host
// functions in them; asked for a node's parameters back, the guest gets
// its own function.  Runs against fake_hip6_device.c's stand-in for the
// runtime of a machine with a GPU (the real one, without a GPU, answers
// hipErrorNoDevice); the same source built for AArch64 and run natively
// against it prints the same.
#include <hip/hip_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static __thread int calls_on_this_thread;
static pthread_t main_thread;

static void count(void *data) {
  ++calls_on_this_thread;
  *(int *)data += calls_on_this_thread;
}

static void name(void *data) {
  char *text = data;
  strcat(text, pthread_equal(pthread_self(), main_thread) ? "main thread" : "runtime thread");
  snprintf(text + strlen(text), 32, ", call %d there; ", ++calls_on_this_thread);
}

static void report(const char *what, hipError_t e) { printf("%-28s %d\n", what, (int)e); }

int main(void) {
  main_thread = pthread_self();
  hipGraph_t graph = NULL;
  report("hipGraphCreate", hipGraphCreate(&graph, 0));
  int total = 100;
  char where[128] = "ran on: ";
  hipHostNodeParams count_params = {count, &total}, name_params = {name, where};
  hipGraphNode_t count_node = NULL, name_node = NULL;
  report("hipGraphAddHostNode count", hipGraphAddHostNode(&count_node, graph, NULL, 0, &count_params));
  report("hipGraphAddHostNode name", hipGraphAddHostNode(&name_node, graph, NULL, 0, &name_params));
  hipHostNodeParams got = {NULL, NULL};
  report("hipGraphHostNodeGetParams", hipGraphHostNodeGetParams(name_node, &got));
  printf("its function is the guest's: %s, its data too: %s\n", got.fn == name ? "yes" : "no",
         got.userData == where ? "yes" : "no");
  int other_total = 1000;
  count_params.userData = &other_total;
  report("hipGraphHostNodeSetParams", hipGraphHostNodeSetParams(count_node, &count_params));
  // The generic call: a host node's parameters inside hipGraphNodeParams
  // (the runtime gets a host function only where the type says a host
  // node's function is: a memset node's bytes there stay as they are).
  hipGraphNodeParams generic;
  memset(&generic, 0, sizeof generic);
  generic.type = hipGraphNodeTypeHost;
  generic.host.fn = count;
  generic.host.userData = &total;
  hipGraphNode_t generic_node = NULL;
  report("hipGraphAddNode host", hipGraphAddNode(&generic_node, graph, NULL, 0, &generic));
  printf("its function is still the guest's: %s\n", generic.host.fn == count ? "yes" : "no");
  memset(&generic, 0, sizeof generic);
  generic.type = hipGraphNodeTypeMemset;
  generic.memset.dst = (void *)count;  // looks like a guest function, is not one here
  report("hipGraphAddNode memset", hipGraphAddNode(&generic_node, graph, NULL, 0, &generic));
  printf("the runtime saw the memset's bytes: %s\n", generic.reserved2 == (long long)(uintptr_t)count ? "yes" : "no");
  hipGraphExec_t exec = NULL;
  report("hipGraphInstantiate", hipGraphInstantiate(&exec, graph, NULL, NULL, 0));
  for (int i = 0; i < 2; ++i) report("hipGraphLaunch", hipGraphLaunch(exec, NULL));
  printf("totals: %d %d (calls on the main thread: %d)\n", total, other_total, calls_on_this_thread);
  printf("%s\n", where);
  return 0;
}
