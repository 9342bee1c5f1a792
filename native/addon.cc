// Entry point of the native bridge: system calls, memory and errors only; policy lives in
// TypeScript (src/device/native.ts wraps these functions with types).
#include <napi.h>

#include "common.h"

// The interface's version: raised with every change of a function's arguments or results, and
// checked by src/device/native.ts (ADDON_INTERFACE), so a stale build is named, not misread.
static const int kInterface = 3;

static Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("interface", Napi::Number::New(env, kInterface));
  dtn::RegisterBpf(env, exports);
  dtn::RegisterPerf(env, exports);
  dtn::RegisterWait(env, exports);
  dtn::RegisterSys(env, exports);
  dtn::RegisterUprobeMulti(env, exports);
  return exports;
}

NODE_API_MODULE(dtrace_native, Init)
