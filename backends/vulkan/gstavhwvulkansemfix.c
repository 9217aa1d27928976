/* gst-avhw: Vulkan backend, semaphores destroyed after a queue thread
 * is done with them
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Mesa's common Vulkan runtime (seen with 25.0.7, Debian 13), on drivers
 * that emulate timeline semaphores and submit from a queue thread
 * (lavapipe): the thread signals a batch's semaphores and fence before it
 * drops the batch's references to the time points it waited on
 * (vk_queue_submit_cleanup()). A semaphore destroyed as soon as the batch
 * is seen done, as Vulkan allows, is then freed under the thread, which
 * writes into it (vk_sync_timeline_point_release(): SIGSEGV in lavapipe's
 * queue thread). FFmpeg's frames do exactly that: a transfer waits on a
 * frame's semaphore and signals its next value in one batch, and
 * vulkan_frame_free() waits for that value and destroys the semaphore
 * (docs/examples/many_clips.py --threads 3 on lavapipe crashed in one run
 * of 5 to 30, in the queue thread, at the end of a stream, as libplacebo's
 * output frames went with their filter graph). Later Mesa refcounts the
 * timeline's state, which ends it.
 *
 * So on such a device, every vkDestroySemaphore FFmpeg and libplacebo
 * make (through gstavhwvulkanhooks.c, set before av_hwdevice_ctx_init())
 * first lets the queue thread get past every batch submitted so far: an
 * empty submission with a fence on each queue, waited for outside the
 * queue lock. Semaphores die with
 * frames contexts and filter graphs, so this costs a wait at the end of a
 * stream, not one per frame. GST_AVHW_VK_NO_SEM_FIX (set to anything)
 * turns it off.
 *
 * On every device the backend makes, the same destroy also keeps the last
 * GRAVE_MAX semaphores destroyed alive a while (destroyed for good when
 * more come, and all with the device): FFmpeg 7.1's H.264 decoder releases
 * a DPB picture's frame before its hwaccel data (ff_h264_unref_picture()),
 * and where that frame was the last of a frames pool FFmpeg had already let
 * go (a kept decoder set up again for the next stream), the pool is freed
 * and the frame's semaphore destroyed, then ff_vk_decode_free_frame()
 * waits on that semaphore: NVIDIA's driver crashed there (run 117: one
 * process decoding h264/SVA_CL1_E.264 then h264/SarVui.264 of the corpus,
 * SIGSEGV in vkWaitSemaphores). The semaphore's values were reached before
 * FFmpeg destroyed it, so the late wait returns at once.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>
#include <libavutil/hwcontext_vulkan.h>
#include "gstavhwvulkanqueues.h"
#include "gstavhwvulkanhooks.h"
#include "gstavhwvulkansemfix.h"

GST_DEBUG_CATEGORY_EXTERN (vk_debug);
#define GST_CAT_DEFAULT vk_debug

/* destroyed semaphores kept alive per device: more than a frames pool
 * holds (FFmpeg frees a pool's frames at once) */
#define GRAVE_MAX 256

typedef struct
{
  VkDevice dev;
  AVHWDeviceContext *dctx;
  gboolean drain;               /* lavapipe: drain the queues first */
  GQueue grave;                 /* VkSemaphore, oldest first */
  const VkAllocationCallbacks *alloc;
} SemFix;

static GMutex fix_lock;
static GPtrArray *fixes;        /* SemFix, one per device that has it */

static SemFix *
find_locked (VkDevice dev)
{
  guint i;

  for (i = 0; fixes && i < fixes->len; i++) {
    SemFix *f = g_ptr_array_index (fixes, i);

    if (f->dev == dev)
      return f;
  }
  return NULL;
}

/* Waits until the queue thread is past (and has cleaned up) every batch
 * submitted on the device's queues (FFmpeg's list of them) before this
 * call. */
static void
drain (SemFix * f)
{
#if GST_AVHW_VK_QUEUE_LIST
  AVVulkanDeviceContext *hwctx = f->dctx->hwctx;
  VkFenceCreateInfo info = { VK_STRUCTURE_TYPE_FENCE_CREATE_INFO, };
  int i, j;

  for (i = 0; i < hwctx->nb_qf; i++) {
    for (j = 0; j < hwctx->qf[i].num; j++) {
      int family = hwctx->qf[i].idx;
      VkQueue queue;
      VkFence fence;
      VkResult r;

      if (vkCreateFence (f->dev, &info, NULL, &fence) != VK_SUCCESS)
        continue;
      vkGetDeviceQueue (f->dev, family, j, &queue);
      hwctx->lock_queue (f->dctx, family, j);
      r = vkQueueSubmit (queue, 0, NULL, fence);
      hwctx->unlock_queue (f->dctx, family, j);
      if (r == VK_SUCCESS)
        vkWaitForFences (f->dev, 1, &fence, VK_TRUE, UINT64_MAX);
      vkDestroyFence (f->dev, fence, NULL);
    }
  }
#endif
}

/* Destroys @sem of @f's device for good. */
static void
destroy_now (SemFix * f, VkSemaphore sem)
{
  if (f->drain) {
    GST_LOG ("VkDevice %p: queues drained before destroying a semaphore",
        (gpointer) f->dev);
    drain (f);
  }
  vkDestroySemaphore (f->dev, sem, f->alloc);
}

static void VKAPI_CALL
destroy_semaphore (VkDevice dev, VkSemaphore sem,
    const VkAllocationCallbacks * alloc)
{
  VkSemaphore oldest = VK_NULL_HANDLE;
  SemFix *f;

  if (sem == VK_NULL_HANDLE)
    return;
  g_mutex_lock (&fix_lock);
  f = find_locked (dev);
  if (f && alloc == f->alloc) {
    g_queue_push_tail (&f->grave, (gpointer) sem);
    if (g_queue_get_length (&f->grave) > GRAVE_MAX)
      oldest = (VkSemaphore) g_queue_pop_head (&f->grave);
  }
  g_mutex_unlock (&fix_lock);
  /* the device outlives every semaphore of it, and f the device */
  if (!f || alloc != f->alloc)
    vkDestroySemaphore (dev, sem, alloc);
  else if (oldest != VK_NULL_HANDLE)
    destroy_now (f, oldest);
}

/* Whether @phys is a driver with the race above: lavapipe (a queue thread
 * and emulated timelines, always). Only with FFmpeg 7.1's queue list: on
 * older FFmpeg the backend does not make the device itself
 * (gstavhwvulkandevice.c), so nothing is in front of FFmpeg's loading of
 * its functions, and there is no lock_queue to submit under. */
gboolean
gst_avhw_vk_sem_fix_needed (VkPhysicalDevice phys)
{
  VkPhysicalDeviceDriverProperties drv = {
    VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES,
  };
  VkPhysicalDeviceProperties2 props = {
    VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &drv,
  };

  if (!GST_AVHW_VK_QUEUE_LIST || g_getenv ("GST_AVHW_VK_NO_SEM_FIX"))
    return FALSE;
  vkGetPhysicalDeviceProperties2 (phys, &props);
  return drv.driverID == VK_DRIVER_ID_MESA_LLVMPIPE;
}

/* Before av_hwdevice_ctx_init (@dctx, its VkDevice and queue list set):
 * FFmpeg and libplacebo get the destroy above for that device. */
void
gst_avhw_vk_sem_fix_install (AVHWDeviceContext * dctx, gboolean drain_first)
{
  AVVulkanDeviceContext *hwctx = dctx->hwctx;
  SemFix *f = g_new0 (SemFix, 1);

  f->dev = hwctx->act_dev;
  f->dctx = dctx;
  f->drain = drain_first;
  f->alloc = hwctx->alloc;
  g_queue_init (&f->grave);
  gst_avhw_vk_hook_install (dctx, "vkDestroySemaphore", NULL,
      (PFN_vkVoidFunction) destroy_semaphore);
  g_mutex_lock (&fix_lock);
  if (!fixes)
    fixes = g_ptr_array_new ();
  g_ptr_array_add (fixes, f);
  g_mutex_unlock (&fix_lock);
  GST_INFO ("VkDevice %p: destroyed semaphores kept alive a while%s",
      (gpointer) f->dev, drain_first ? ", and destroyed after the queue "
      "thread is done with them (Mesa's emulated timelines)" : "");
}

/* With @dev's destruction. */
void
gst_avhw_vk_sem_fix_remove (VkDevice dev)
{
  SemFix *f;

  g_mutex_lock (&fix_lock);
  f = find_locked (dev);
  if (f)
    g_ptr_array_remove_fast (fixes, f);
  g_mutex_unlock (&fix_lock);
  if (!f)
    return;
  /* FFmpeg's queue locks are gone by now (its device_uninit ran): wait
   * for the whole device instead of draining each queue */
  if (!g_queue_is_empty (&f->grave))
    vkDeviceWaitIdle (dev);
  while (!g_queue_is_empty (&f->grave))
    vkDestroySemaphore (dev, (VkSemaphore) g_queue_pop_head (&f->grave),
        f->alloc);
  g_free (f);
}
