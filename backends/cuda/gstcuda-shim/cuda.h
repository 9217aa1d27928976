/* gst-avhw: the <cuda.h> that GStreamer's gst/cuda headers include, from
 * ffnvcodec, the headers FFmpeg and this backend use.
 *
 * gstreamer-cuda-1.0 loads the CUDA driver at run time but its installed
 * headers still include the CUDA toolkit's <cuda.h>, which a machine
 * without the toolkit lacks. The types gstcudacontext.h, gstcudastream.h
 * and gstcudamemory.h use are the driver API's own in both, so this folder
 * is on the cuda backend's include path only.
 *
 * GStreamer 1.24 added IPC, virtual-memory and memory-pool calls to these
 * headers (gstcudamemory.h, gstcudamemorypool.h, and cuda-gst.h, which
 * gstcudacontext.h includes), declared with driver types that ffnvcodec
 * (12.x) does not define. The backend never calls them; the declarations
 * only need the types. Each one below is the CUDA toolkit's type under the
 * toolkit's own tag, defined only when ffnvcodec lacks it: Meson checks
 * each name and sets HAVE_<NAME> (backends/cuda/meson.build). Structs
 * used only through pointers stay incomplete; the two IPC handles, passed
 * by value, have the toolkit's 64-byte size; the enums list only their
 * first value, which nothing here uses.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <ffnvcodec/dynlink_cuda.h>

#ifndef HAVE_CUMEMALLOCATIONPROP
typedef struct CUmemAllocationProp_st CUmemAllocationProp;
#endif
#ifndef HAVE_CUMEMPOOLPROPS
typedef struct CUmemPoolProps_st CUmemPoolProps;
#endif
#ifndef HAVE_CUMEMACCESSDESC
typedef struct CUmemAccessDesc_st CUmemAccessDesc;
#endif
#ifndef HAVE_CUMEMLOCATION
typedef struct CUmemLocation_st CUmemLocation;
#endif
#ifndef HAVE_CUMEMORYPOOL
typedef struct CUmemPoolHandle_st *CUmemoryPool;
#endif
#ifndef HAVE_CUMEMGENERICALLOCATIONHANDLE
typedef unsigned long long CUmemGenericAllocationHandle;
#endif
#ifndef HAVE_CUIPCEVENTHANDLE
typedef struct CUipcEventHandle_st
{
  char reserved[64];
} CUipcEventHandle;
#endif
#ifndef HAVE_CUIPCMEMHANDLE
typedef struct CUipcMemHandle_st
{
  char reserved[64];
} CUipcMemHandle;
#endif
#ifndef HAVE_CUMEMALLOCATIONGRANULARITY_FLAGS
typedef enum CUmemAllocationGranularity_flags_enum
{
  CU_MEM_ALLOC_GRANULARITY_MINIMUM = 0x0
} CUmemAllocationGranularity_flags;
#endif
#ifndef HAVE_CUMEMALLOCATIONHANDLETYPE
typedef enum CUmemAllocationHandleType_enum
{
  CU_MEM_HANDLE_TYPE_NONE = 0x0
} CUmemAllocationHandleType;
#endif
#ifndef HAVE_CUMEMPOOL_ATTRIBUTE
typedef enum CUmemPool_attribute_enum
{
  CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES = 1
} CUmemPool_attribute;
#endif
