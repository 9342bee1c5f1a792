#include "common.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <unistd.h>

namespace dtn {

Napi::Error ErrnoError(Napi::Env env, const std::string& what, int err) {
  const char* name = strerrorname_np(err);
  Napi::Error e = Napi::Error::New(env, what + ": " + strerror(err));
  e.Value().Set("code", Napi::String::New(env, name ? name : ("E" + std::to_string(err))));
  e.Value().Set("errno", Napi::Number::New(env, err));
  e.Value().Set("syscall", Napi::String::New(env, what));
  return e;
}

void ThrowErrno(Napi::Env env, const std::string& what, int err) {
  ErrnoError(env, what, err).ThrowAsJavaScriptException();
}

void ThrowType(Napi::Env env, const std::string& message) {
  Napi::TypeError::New(env, message).ThrowAsJavaScriptException();
}

void ThrowRange(Napi::Env env, const std::string& message) {
  Napi::RangeError::New(env, message).ThrowAsJavaScriptException();
}

// Integral number or BigInt to int64.
static bool ToInt(Napi::Env env, Napi::Value v, const char* name, int64_t* out) {
  if (v.IsNumber()) {
    double d = v.As<Napi::Number>().DoubleValue();
    if (!std::isfinite(d) || std::trunc(d) != d || std::fabs(d) > 9007199254740991.0) {
      ThrowType(env, std::string(name) + " must be an integer");
      return false;
    }
    *out = static_cast<int64_t>(d);
    return true;
  }
  if (v.IsBigInt()) {
    bool lossless = false;
    *out = v.As<Napi::BigInt>().Int64Value(&lossless);
    if (!lossless) {
      // Accept values in the unsigned 64-bit range as their two's-complement bit pattern.
      uint64_t u = v.As<Napi::BigInt>().Uint64Value(&lossless);
      if (!lossless) {
        ThrowRange(env, std::string(name) + " does not fit in 64 bits");
        return false;
      }
      *out = static_cast<int64_t>(u);
    }
    return true;
  }
  ThrowType(env, std::string(name) + " must be a number");
  return false;
}

static bool ToU64(Napi::Env env, Napi::Value v, const char* name, uint64_t* out) {
  if (v.IsBigInt()) {
    bool lossless = false;
    *out = v.As<Napi::BigInt>().Uint64Value(&lossless);
    if (!lossless) {
      ThrowRange(env, std::string(name) + " must be an unsigned 64-bit value");
      return false;
    }
    return true;
  }
  int64_t i;
  if (!ToInt(env, v, name, &i)) return false;
  if (i < 0) {
    ThrowRange(env, std::string(name) + " must not be negative");
    return false;
  }
  *out = static_cast<uint64_t>(i);
  return true;
}

bool ArgInt(const Napi::CallbackInfo& info, size_t i, const char* name, int64_t* out) {
  return ToInt(info.Env(), info[i], name, out);
}

bool ArgOptInt(const Napi::CallbackInfo& info, size_t i, const char* name, int64_t def,
               int64_t* out) {
  if (info[i].IsUndefined() || info[i].IsNull()) {
    *out = def;
    return true;
  }
  return ToInt(info.Env(), info[i], name, out);
}

bool ArgFd(const Napi::CallbackInfo& info, size_t i, int* out) {
  int64_t v;
  if (!ToInt(info.Env(), info[i], "fd", &v)) return false;
  if (v < 0 || v > INT32_MAX) {
    ThrowRange(info.Env(), "fd out of range");
    return false;
  }
  *out = static_cast<int>(v);
  return true;
}

bool ArgBuffer(const Napi::CallbackInfo& info, size_t i, const char* name,
               Napi::Buffer<uint8_t>* out) {
  if (!info[i].IsBuffer()) {
    ThrowType(info.Env(), std::string(name) + " must be a Buffer");
    return false;
  }
  *out = info[i].As<Napi::Buffer<uint8_t>>();
  return true;
}

bool ArgOptBuffer(const Napi::CallbackInfo& info, size_t i, const char* name,
                  Napi::Buffer<uint8_t>* out, bool* present) {
  if (info[i].IsUndefined() || info[i].IsNull()) {
    *present = false;
    return true;
  }
  *present = true;
  return ArgBuffer(info, i, name, out);
}

bool ArgObject(const Napi::CallbackInfo& info, size_t i, const char* name, Napi::Object* out) {
  if (!info[i].IsObject()) {
    ThrowType(info.Env(), std::string(name) + " must be an object");
    return false;
  }
  *out = info[i].As<Napi::Object>();
  return true;
}

static bool Missing(Napi::Value v) { return v.IsUndefined() || v.IsNull(); }

bool PropInt(Napi::Env env, Napi::Object o, const char* key, bool required, int64_t def,
             int64_t* out) {
  Napi::Value v = o.Get(key);
  if (Missing(v)) {
    if (required) {
      ThrowType(env, std::string(key) + " is required");
      return false;
    }
    *out = def;
    return true;
  }
  return ToInt(env, v, key, out);
}

bool PropU64(Napi::Env env, Napi::Object o, const char* key, bool required, uint64_t def,
             uint64_t* out) {
  Napi::Value v = o.Get(key);
  if (Missing(v)) {
    if (required) {
      ThrowType(env, std::string(key) + " is required");
      return false;
    }
    *out = def;
    return true;
  }
  return ToU64(env, v, key, out);
}

bool PropString(Napi::Env env, Napi::Object o, const char* key, bool required, std::string* out,
                bool* present) {
  Napi::Value v = o.Get(key);
  if (Missing(v)) {
    if (required) {
      ThrowType(env, std::string(key) + " is required");
      return false;
    }
    if (present) *present = false;
    return true;
  }
  if (!v.IsString()) {
    ThrowType(env, std::string(key) + " must be a string");
    return false;
  }
  *out = v.As<Napi::String>().Utf8Value();
  if (present) *present = true;
  return true;
}

bool PropBool(Napi::Env env, Napi::Object o, const char* key, bool def, bool* out) {
  Napi::Value v = o.Get(key);
  if (Missing(v)) {
    *out = def;
    return true;
  }
  if (!v.IsBoolean()) {
    ThrowType(env, std::string(key) + " must be a boolean");
    return false;
  }
  *out = v.As<Napi::Boolean>().Value();
  return true;
}

bool PropBuffer(Napi::Env env, Napi::Object o, const char* key, Napi::Buffer<uint8_t>* out) {
  Napi::Value v = o.Get(key);
  if (!v.IsBuffer()) {
    ThrowType(env, std::string(key) + " must be a Buffer");
    return false;
  }
  *out = v.As<Napi::Buffer<uint8_t>>();
  return true;
}

// The kernel sizes per-CPU values by the possible CPUs ("0-3,6"), highest index + 1.
int PossibleCpus() {
  static int cached = 0;
  if (cached > 0) return cached;
  int result = 0;
  FILE* f = fopen("/sys/devices/system/cpu/possible", "re");
  if (f) {
    char line[256] = {0};
    if (fgets(line, sizeof line, f)) {
      const char* p = line;
      while (*p) {
        char* end;
        long a = strtol(p, &end, 10);
        if (end == p) break;
        long b = a;
        p = end;
        if (*p == '-') {
          b = strtol(p + 1, &end, 10);
          p = end;
        }
        if (b + 1 > result) result = static_cast<int>(b + 1);
        if (*p == ',') p++;
        else break;
      }
    }
    fclose(f);
  }
  if (result <= 0) {
    long n = sysconf(_SC_NPROCESSORS_CONF);
    result = n > 0 ? static_cast<int>(n) : 1;
  }
  cached = result;
  return cached;
}

}  // namespace dtn
