/* gst-avhw benchmark helper: vk-time's timeline semaphore and query
 * tables (vk-sync.c)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stdint.h>
#include <stdlib.h>

/* vkGetSemaphoreCounterValue(device, semaphore, value): 0 on success */
typedef int (*VkSyncCounterFn) (uintptr_t dev, uint64_t sem, uint64_t * v);

int vk_sync_enabled (void);
void vk_sync_created (uintptr_t dev, const void *create_info, uint64_t sem);
void vk_sync_destroyed (uint64_t sem);
void vk_sync_submit (uintptr_t queue, uint32_t n, const void *submits);
void vk_sync_submit2 (uintptr_t queue, uint32_t n, const void *submits);
void vk_sync_host_signal (const void *signal_info);
void vk_sync_query (uint64_t pool, uint32_t first, uint32_t count, int begin);
void vk_sync_dump_queries (uint64_t pool, uint32_t first, uint32_t count);
void vk_sync_dump (VkSyncCounterFn counter);
