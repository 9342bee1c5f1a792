// Entry point of the native bridge: system calls, memory and errors only; policy lives in
// TypeScript (src/device/native.ts wraps these functions with types).
#include <napi.h>

#include "common.h"

static Napi::Object Init(Napi::Env env, Napi::Object exports) {
  dtn::RegisterBpf(env, exports);
  dtn::RegisterPerf(env, exports);
  dtn::RegisterWait(env, exports);
  dtn::RegisterSys(env, exports);
  dtn::RegisterUprobeMulti(env, exports);
  return exports;
}

NODE_API_MODULE(dtrace_native, Init)
