/* gst-avhw: Vulkan backend
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <vulkan/vulkan.h>
#include <gst/avhw/gstavhwbackend-impl.h>

G_BEGIN_DECLS

/**
 * GstAvhwVulkanBackend:
 *
 * The `vulkan` backend: Vulkan devices through FFmpeg's vulkan hwcontext.
 * Device `vulkan:N` is physical device N in vkEnumeratePhysicalDevices()
 * order.
 *
 * Interop with GStreamer's vulkan elements (library gstreamer-vulkan-1.0),
 * when built with it: a `gst.vulkan.device` context gives an avhw device on
 * that GstVulkanDevice's VkDevice (kept alive by the device), and such a
 * device answers `gst.vulkan.device` queries with it, so vulkanupload,
 * vulkandownload and avhw elements share one VkDevice. GStreamer 1.22
 * cannot wrap a VkDevice it did not create, so a device FFmpeg made is not
 * offered to GStreamer's elements. See gstavhwvulkaninterop.c for the
 * caveats (timeline semaphores, one shared queue).
 */
#define GST_TYPE_AVHW_VULKAN_BACKEND (gst_avhw_vulkan_backend_get_type ())
G_DECLARE_FINAL_TYPE (GstAvhwVulkanBackend, gst_avhw_vulkan_backend, GST,
    AVHW_VULKAN_BACKEND, GstAvhwBackend);

/* The process's VkInstance, made at the first call and kept for the
 * process: the backend lists devices, asks their video capabilities and
 * makes its VkDevices on it, so the driver starts one instance, not one
 * for each (on NVIDIA's driver each costs tens of ms). Vulkan 1.3 where the
 * loader has it (@api_version says which), else 1.1. VK_NULL_HANDLE when
 * it could not be made (@result says why). Not to be destroyed. */
G_GNUC_INTERNAL
VkInstance vk_instance_get (guint32 * api_version, VkResult * result);

/* From gstavhwvulkandevice.c: open_device: the VkDevice made with the
 * queues FFmpeg uses, one of each, two of a video family (FFmpeg 7.1 on);
 * FFmpeg's own av_hwdevice_ctx_create() with @options or older FFmpeg. */
G_GNUC_INTERNAL
AVBufferRef *vk_open_device (GstAvhwBackend * backend, guint index,
    const GstStructure * options, GError ** error);

/* From gstavhwvulkandevice.c: get_default_lanes: two device contexts
 * where the backend makes the VkDevice and the device has several decode
 * queues (lane 0 one queue, lane 1 the others), else 1; get_lane_sessions:
 * lane 1 runs a session per decode queue but one. */
G_GNUC_INTERNAL
guint vk_get_default_lanes (GstAvhwBackend * backend, guint index);
G_GNUC_INTERNAL
guint vk_get_lane_sessions (GstAvhwBackend * backend, guint index,
    guint lane);

/* From gstavhwvulkancaps.c: sets query_decoder
 * (video queues, extensions and profile capabilities, asked once). */
G_GNUC_INTERNAL
void vk_caps_class_init (GstAvhwBackendClass * bclass);

/* From gstavhwvulkancaps.c: the queues of device @index's largest video
 * decode queue family, 0 without one. */
G_GNUC_INTERNAL
guint vk_decode_queue_count (guint index);

/* From gstavhwvulkanscale.c: scale_filter = scale_vulkan and what it
 * makes. */
G_GNUC_INTERNAL
void vk_scale_class_init (GstAvhwBackendClass * bclass);

/* From gstavhwvulkanoddsize.c: FALSE, with @error naming the problem, when
 * this FFmpeg's vulkan transfers between @hw_frame and @sw_frame lose the
 * last chroma row (a 3-plane 4:2:0 frame of odd height). Call with
 * transfers serialised. */
G_GNUC_INTERNAL
gboolean vk_check_odd_height (const struct AVFrame * hw_frame,
    const struct AVFrame * sw_frame, GError ** error);

/* From gstavhwvulkandownload.c: whether a download of @src must go
 * through vk_download_own(), because this FFmpeg's own download of it
 * gives a wrong frame (FFmpeg 7.1 on a device without
 * VK_EXT_external_memory_host). */
G_GNUC_INTERNAL
gboolean vk_download_is_own (const struct AVFrame * src);

/* Copies the device frame @src into the system frame @dst (given planes, or
 * none: then they are allocated) as FFmpeg 7.1's download means to. Call
 * with transfers serialised. */
G_GNUC_INTERNAL
gboolean vk_download_own (struct AVFrame * dst, const struct AVFrame * src,
    GError ** error);

/* From gstavhwvulkancopy.c: the device frame @src copied into the device
 * frame @dst (same VkDevice and format) on the device; FFmpeg 7 only. */
G_GNUC_INTERNAL
gboolean vk_copy (GstAvhwBackend * backend, struct AVFrame * dst,
    const struct AVFrame * src, GError ** error);

G_END_DECLS
