/* A second shared object using NVTX for test-nvtxrec: NVTX keeps state per
 * shared object, so the recorder is initialised again for this one and must
 * merge its domain with the test program's. */

#include <nvtx3/nvToolsExt.h>

__attribute__ ((visibility ("default")))
nvtxDomainHandle_t
test_helper_push (const char *domain_name, const char *message)
{
  nvtxDomainHandle_t domain = nvtxDomainCreateA (domain_name);
  nvtxEventAttributes_t a = { 0 };

  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = message;
  nvtxDomainRangePushEx (domain, &a);
  return domain;
}
