/* gst-avhw: Vulkan backend, decode submissions spread over a decode
 * family's queues
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * FFmpeg 7.1's Vulkan decoders submit from an execution pool of two
 * contexts, context i on queue i % nb_queues of the decode family
 * (libavcodec/vulkan_decode.c, libavutil/vulkan.c): every decoder of a
 * device submits to queues 0 and 1, however many the device has. A
 * queue runs its submissions in order, so a decode that waits for its
 * reference frames' semaphores holds back every other decoder's work
 * queued behind it. Seven 1080p H.264 streams in one process ran at 473
 * fps on one decode queue and 639 on two (an H100, run 80), which reads
 * as the queues setting the pace (not measured with more yet).
 *
 * With more queues made than FFmpeg is told of (GST_AVHW_VK_VIDEO_QUEUES
 * above two: gstavhwvulkandevice.c), every vkQueueSubmit2 FFmpeg makes on
 * one of the decode queues it knows goes to the next queue of the family
 * in turn instead, under a lock of that queue (Vulkan's external
 * synchronisation; FFmpeg's own lock_queue covers the queue it thinks it
 * uses, which is not the one used). Order between submissions is FFmpeg's
 * timeline semaphores' already: its two contexts put consecutive frames on
 * two queues. The function reaches FFmpeg (and libplacebo) through the
 * device context's get_proc_addr (gstavhwvulkanhooks.c).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>
#include <libavutil/hwcontext_vulkan.h>
#include "gstavhwvulkanhooks.h"
#include "gstavhwvulkanspread.h"

GST_DEBUG_CATEGORY_EXTERN (vk_debug);
#define GST_CAT_DEFAULT vk_debug

typedef struct
{
  VkDevice dev;
  guint n_known;                /* the queues FFmpeg is told of: 0 .. n_known - 1 */
  guint n;                      /* every queue of the family */
  VkQueue *queues;
  GMutex *locks;
  PFN_vkQueueSubmit2 submit2;
  gint next;                    /* atomic: the next queue's turn */
  gint used;                    /* atomic: a bit for each queue submitted to */
} Spread;

static GMutex spreads_lock;
static GPtrArray *spreads;      /* Spread*, one per device that spreads */

/* spreads_lock held: the device whose known decode queues hold @queue */
static Spread *
find_queue_locked (VkQueue queue)
{
  guint i, j;

  for (i = 0; spreads && i < spreads->len; i++) {
    Spread *s = g_ptr_array_index (spreads, i);

    for (j = 0; j < s->n_known; j++) {
      if (s->queues[j] == queue)
        return s;
    }
  }
  return NULL;
}

static VkResult VKAPI_CALL
queue_submit2 (VkQueue queue, uint32_t n_submits,
    const VkSubmitInfo2 * submits, VkFence fence)
{
  Spread *s;
  guint p;
  VkResult r;

  g_mutex_lock (&spreads_lock);
  s = find_queue_locked (queue);
  g_mutex_unlock (&spreads_lock);
  /* the device outlives its submissions, and s the device */
  if (!s)
    return vkQueueSubmit2 (queue, n_submits, submits, fence);
  p = (guint) g_atomic_int_add (&s->next, 1) % s->n;
  if (p < 31 && !(g_atomic_int_or ((guint *) & s->used, 1u << p) & (1u << p)))
    GST_INFO ("VkDevice %p: a decode submitted to queue %u, the first there",
        (gpointer) s->dev, p);
  g_mutex_lock (&s->locks[p]);
  r = s->submit2 (s->queues[p], n_submits, submits, fence);
  g_mutex_unlock (&s->locks[p]);
  return r;
}

gboolean
gst_avhw_vk_spread_install (AVHWDeviceContext * dctx, guint32 family,
    guint n_known, guint n)
{
  AVVulkanDeviceContext *hwctx = dctx->hwctx;
  Spread *s;
  guint i;

  if (n <= n_known)
    return FALSE;
  s = g_new0 (Spread, 1);
  s->dev = hwctx->act_dev;
  s->n_known = n_known;
  s->n = n;
  s->queues = g_new0 (VkQueue, n);
  s->locks = g_new0 (GMutex, n);
  s->submit2 = (PFN_vkQueueSubmit2) vkGetDeviceProcAddr (s->dev,
      "vkQueueSubmit2");
  for (i = 0; i < n; i++) {
    vkGetDeviceQueue (s->dev, family, i, &s->queues[i]);
    g_mutex_init (&s->locks[i]);
  }
  if (!s->submit2) {
    g_free (s->queues);
    g_free (s->locks);
    g_free (s);
    return FALSE;
  }
  gst_avhw_vk_hook_install (dctx, "vkQueueSubmit2", "vkQueueSubmit2KHR",
      (PFN_vkVoidFunction) queue_submit2);
  g_mutex_lock (&spreads_lock);
  if (!spreads)
    spreads = g_ptr_array_new ();
  g_ptr_array_add (spreads, s);
  g_mutex_unlock (&spreads_lock);
  GST_INFO ("VkDevice %p: decodes FFmpeg submits to queues 0-%u of family "
      "%u go to its %u queues in turn", (gpointer) s->dev, n_known - 1,
      family, n);
  return TRUE;
}

void
gst_avhw_vk_spread_remove (VkDevice dev)
{
  Spread *s = NULL;
  guint i;

  g_mutex_lock (&spreads_lock);
  for (i = 0; spreads && i < spreads->len; i++) {
    if (((Spread *) g_ptr_array_index (spreads, i))->dev == dev) {
      s = g_ptr_array_steal_index_fast (spreads, i);
      break;
    }
  }
  g_mutex_unlock (&spreads_lock);
  if (!s)
    return;
  for (i = 0; i < s->n; i++)
    g_mutex_clear (&s->locks[i]);
  g_free (s->locks);
  g_free (s->queues);
  g_free (s);
}
