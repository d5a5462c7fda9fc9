// What the vm-* tools share, one header for all of it: --input parsing
// (input_parse.h), .npy files (npy.h) and choosing a device (device.h).
#pragma once
#include "tools/common/device.h"
#include "tools/common/input_parse.h"
#include "tools/common/npy.h"
