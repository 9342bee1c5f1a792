{
  "targets": [
    {
      "target_name": "dtrace_native",
      "sources": ["native/addon.cc", "native/common.cc", "native/bpf.cc", "native/perf.cc", "native/wait.cc", "native/sys.cc", "native/uprobe_multi.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_DISABLE_CPP_EXCEPTIONS"],
      "cflags_cc": ["-std=c++17", "-O2", "-Wall"],
      "cflags_cc!": ["-fno-exceptions"]
    }
  ]
}
