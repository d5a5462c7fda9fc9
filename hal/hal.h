// The hardware abstraction layer: device-neutral interfaces designed for an
// asynchronous GPU. Work is recorded into command buffers and submitted with
// wait/signal semaphores; the host touches buffer contents only through
// explicit transfers after waiting. The CPU driver (hal/cpu) may execute at
// submit time (inline mode) or on a queue thread (deferred mode); callers
// must not be able to tell the difference except by timing.
//
// This umbrella includes one header per object; none of them names a
// driver's types or executable formats (those live in hal/cpu/ and
// hal/vulkan/). Conformance tests for every driver: hal/cts/.
#pragma once

#include "hal/buffer.h"
#include "hal/command_buffer.h"
#include "hal/device.h"
#include "hal/executable.h"
#include "hal/semaphore.h"
