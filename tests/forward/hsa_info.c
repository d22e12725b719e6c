// ROCm's HSA runtime without a GPU: what each call answers, before and
// after hsa_init (which fails with HSA_STATUS_ERROR_OUT_OF_RESOURCES,
// 0x1008, where no GPU is).  Records travel by value (hsa_agent_t,
// hsa_signal_t), a callback may come on the runtime's own threads
// (hsa_amd_signal_async_handler), and an iterator calls back on this
// thread; the extension tables of functions the runtime fills are asked
// for (without a GPU it fills none).  The same source built for AArch64
// and run natively prints the same.
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <hsa/hsa_ext_image.h>
#include <hsa/hsa_ven_amd_loader.h>
#include <stdint.h>
#include <stdio.h>

static int agents;

static hsa_status_t count_agent(hsa_agent_t agent, void *data) {
  (void)agent;
  ++*(int *)data;
  return HSA_STATUS_SUCCESS;
}

static bool on_signal(hsa_signal_value_t value, void *arg) {
  (void)value;
  (void)arg;
  return false;
}

static void report(const char *what, hsa_status_t status) {
  const char *text = NULL;
  hsa_status_t described = hsa_status_string(status, &text);
  printf("%-36s 0x%04x (%s)\n", what, (unsigned)status,
         described == HSA_STATUS_SUCCESS && text ? text : "no description");
}

int main(void) {
  uint16_t major = 0;
  report("hsa_system_get_info before init", hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major));
  hsa_status_t init = hsa_init();
  report("hsa_init", init);
  report("hsa_iterate_agents", hsa_iterate_agents(count_agent, &agents));
  printf("agents counted: %d\n", agents);
  hsa_agent_t agent = {0x1234};
  char name[64] = "";
  report("hsa_agent_get_info (a made-up agent)", hsa_agent_get_info(agent, HSA_AGENT_INFO_NAME, name));
  hsa_signal_t signal = {0};
  report("hsa_signal_create", hsa_signal_create(1, 0, NULL, &signal));
  report("hsa_amd_signal_async_handler", hsa_amd_signal_async_handler(signal, HSA_SIGNAL_CONDITION_LT, 1, on_signal, NULL));
  report("hsa_signal_destroy", hsa_signal_destroy(signal));
  hsa_ven_amd_loader_1_03_pfn_t loader = {0};
  report("hsa_system_get_major_extension_table",
         hsa_system_get_major_extension_table(HSA_EXTENSION_AMD_LOADER, 1, sizeof loader, &loader));
  hsa_ext_images_1_00_pfn_t images = {0};
  report("hsa_system_get_extension_table", hsa_system_get_extension_table(HSA_EXTENSION_IMAGES, 1, 0, &images));
  printf("tables filled: %s, %s\n", loader.hsa_ven_amd_loader_query_host_address ? "loader" : "no loader",
         images.hsa_ext_image_create ? "images" : "no images");
  if (init == HSA_STATUS_SUCCESS) report("hsa_shut_down", hsa_shut_down());
  return init == HSA_STATUS_SUCCESS ? 0 : 2;
}
