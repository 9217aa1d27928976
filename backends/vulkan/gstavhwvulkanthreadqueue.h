/* gst-avhw: Vulkan backend, the decode queue of a thread's decoders
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Header-only so that libs/vkqueues checks it without the backend. One
 * copy of the state per file that includes it: only
 * gstavhwvulkanlanequeue.c does in the backend.
 */
#pragma once

#include <glib.h>

/* The decode queue, of @n_queues, for the decoders the calling thread
 * makes: given in turn to each thread at its first call (0, 1, ... and
 * round again), the same for every later call of that thread. */
static inline guint32
gst_avhw_vk_thread_queue (guint32 n_queues)
{
  static GPrivate turn;         /* the thread's turn + 1 */
  static gint next_turn;
  guint t = GPOINTER_TO_UINT (g_private_get (&turn));

  if (!t) {
    t = (guint) g_atomic_int_add (&next_turn, 1) + 1;
    g_private_set (&turn, GUINT_TO_POINTER (t));
  }
  return n_queues > 1 ? (t - 1) % n_queues : 0;
}
