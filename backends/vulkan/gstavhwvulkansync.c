/* gst-avhw: Vulkan backend, one transfer submission on FFmpeg's frames
 *
 * The backend's own download (gstavhwvulkandownload.c) and its device copy
 * (gstavhwvulkancopy.c) submit work on AVVkFrames in FFmpeg 7.1's order:
 * under lock_frame, a barrier from the frame's layout and access, a wait
 * on each image's timeline semaphore at its value and a signal of the
 * next, the submission under FFmpeg's queue lock, and the frame's state
 * left as FFmpeg's transfers leave it. This is that order, once.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include "gstavhwvulkansync.h"

#if GST_AVHW_VK_QUEUE_LIST

void
gst_avhw_vk_sync_add (GstAvhwVkSync * s, const AVVkFrame * vkf, int n_images,
    VkImageLayout layout, VkAccessFlags access)
{
  int i;

  for (i = 0; i < n_images; i++, s->n++) {
    VkImageMemoryBarrier *bar = &s->bar[s->n];

    memset (bar, 0, sizeof (*bar));
    bar->sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER;
    bar->srcAccessMask = vkf->access[i];
    bar->dstAccessMask = access;
    bar->oldLayout = vkf->layout[i];
    bar->newLayout = layout;
    /* FFmpeg 7.1 shares its images among all the queue families it was
     * given (concurrent sharing): no ownership moves. */
    bar->srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    bar->dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    bar->image = vkf->img[i];
    bar->subresourceRange.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
    bar->subresourceRange.levelCount = 1;
    bar->subresourceRange.layerCount = 1;
    if (vkf->sem[i] == VK_NULL_HANDLE)
      continue;
    s->sems[s->n_sems] = vkf->sem[i];
    s->wait_vals[s->n_sems] = vkf->sem_value[i];
    s->sig_vals[s->n_sems] = vkf->sem_value[i] + 1;
    s->stages[s->n_sems] = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    s->n_sems++;
  }
}

void
gst_avhw_vk_sync_barriers (const GstAvhwVkSync * s, VkCommandBuffer cmd)
{
  vkCmdPipelineBarrier (cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
      VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL, 0, NULL, s->n, s->bar);
}

VkResult
gst_avhw_vk_sync_submit (const GstAvhwVkSync * s, AVHWDeviceContext * dctx,
    int family, VkCommandBuffer cmd, VkFence fence)
{
  AVVulkanDeviceContext *hwctx = dctx->hwctx;
  VkTimelineSemaphoreSubmitInfo timeline = {
    .sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
    .waitSemaphoreValueCount = s->n_sems,
    .pWaitSemaphoreValues = s->wait_vals,
    .signalSemaphoreValueCount = s->n_sems,
    .pSignalSemaphoreValues = s->sig_vals,
  };
  VkSubmitInfo submit = {
    .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
    .pNext = &timeline,
    .waitSemaphoreCount = s->n_sems,
    .pWaitSemaphores = s->sems,
    .pWaitDstStageMask = s->stages,
    .commandBufferCount = 1,
    .pCommandBuffers = &cmd,
    .signalSemaphoreCount = s->n_sems,
    .pSignalSemaphores = s->sems,
  };
  VkQueue queue;
  VkResult r;

  vkGetDeviceQueue (hwctx->act_dev, family, 0, &queue);
  hwctx->lock_queue (dctx, family, 0);
  r = vkQueueSubmit (queue, 1, &submit, fence);
  hwctx->unlock_queue (dctx, family, 0);
  return r;
}

void
gst_avhw_vk_sync_commit (AVVkFrame * vkf, int n_images, VkImageLayout layout,
    VkAccessFlags access)
{
  int i;

  for (i = 0; i < n_images; i++) {
    if (vkf->sem[i] != VK_NULL_HANDLE)
      vkf->sem_value[i]++;
    vkf->layout[i] = layout;
    vkf->access[i] = access;
    vkf->queue_family[i] = VK_QUEUE_FAMILY_IGNORED;
  }
}

#endif
