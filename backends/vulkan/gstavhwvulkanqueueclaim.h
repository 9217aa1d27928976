/* gst-avhw: Vulkan backend, decode queues claimed across the machine
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * NVIDIA's driver decodes every VkDevice's queue k of the decode family on
 * one engine (gstavhwvulkanlanequeue.c), in every process: seven processes
 * that each decode on queue 0 share one engine. A claim says "queue k of
 * this physical device is mine" to every process on the machine: an
 * exclusive flock() on a file per queue index, in a directory every
 * process sees (/dev/shm, else the temporary directory). The kernel drops
 * a claim when its descriptor is closed, the process's end included, so
 * a killed process leaves none behind. A queue can be claimed by up to
 * GST_AVHW_VK_CLAIM_TIERS at once: each claim takes the queue the fewest
 * hold, so more claimants than queues share them evenly. Claims only
 * spread work: a queue is used whether claimed or not.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* How many claims one queue takes. */
#define GST_AVHW_VK_CLAIM_TIERS 4

/* A key's length with its NUL: a VkPhysicalDevice's deviceUUID in hex. */
#define GST_AVHW_VK_KEY_LEN (2 * 16 + 1)

/* The directory the backend's claims live in. */
G_GNUC_INTERNAL
const gchar *gst_avhw_vk_claim_dir (void);

/* Claims one of queue indices 0 to @n_queues - 1 of the device @key (a
 * physical device's UUID in hex), in @dir: the lowest of those the fewest
 * descriptors on the machine claim, other than @avoid where another is
 * held as few times (-1: none to avoid). Returns the index, its claim in
 * @fd (to give to gst_avhw_vk_unclaim()); -1 and @fd -1 when every index
 * has GST_AVHW_VK_CLAIM_TIERS claims or the directory takes no file. */
G_GNUC_INTERNAL
gint gst_avhw_vk_claim (const gchar * dir, const gchar * key,
    guint n_queues, gint avoid, gint * fd);

/* Gives claim @fd back (nothing for -1). */
G_GNUC_INTERNAL
void gst_avhw_vk_unclaim (gint fd);

/* The calling thread's claim on device @key, made at its first call for
 * @key (gst_avhw_vk_claim(), avoiding @avoid) and given back when the
 * thread ends; -1 when none could be made. */
G_GNUC_INTERNAL
gint gst_avhw_vk_thread_claim (const gchar * dir, const gchar * key,
    guint n_queues, gint avoid);

G_END_DECLS
