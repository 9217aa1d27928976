/* gst-avhw: Vulkan backend, decode queues claimed across the machine
 * (gstavhwvulkanqueueclaim.h says why)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/file.h>
#include <glib/gstdio.h>
#include "gstavhwvulkanqueueclaim.h"

const gchar *
gst_avhw_vk_claim_dir (void)
{
  static gsize dir;

  if (g_once_init_enter (&dir)) {
    const gchar *d = g_file_test ("/dev/shm", G_FILE_TEST_IS_DIR)
        && g_access ("/dev/shm", W_OK) == 0 ? "/dev/shm" : g_get_tmp_dir ();

    g_once_init_leave (&dir, (gsize) d);
  }
  return (const gchar *) dir;
}

static gint
open_claim_file (const gchar * dir, const gchar * key, guint k, guint tier)
{
  gchar *name = g_strdup_printf ("gst-avhw-vulkan-%s-decode-%u-%u.lock", key,
      k, tier);
  gchar *path = g_build_filename (dir, name, NULL);
  gint fd;

  /* never written: another user's file is claimed as well read-only */
  fd = open (path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
  if (fd < 0 && errno == EACCES)
    fd = open (path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  g_free (path);
  g_free (name);
  return fd;
}

/* How many claims of queue @k others hold, and its lowest free tier in
 * @free_tier (-1: none); -1 when the directory takes no file. */
static gint
count_held (const gchar * dir, const gchar * key, guint k, gint * free_tier)
{
  guint tier;
  gint held = 0;

  *free_tier = -1;
  for (tier = 0; tier < GST_AVHW_VK_CLAIM_TIERS; tier++) {
    gint f = open_claim_file (dir, key, k, tier);

    if (f < 0)
      return -1;
    if (flock (f, LOCK_EX | LOCK_NB) == 0) {
      if (*free_tier < 0)
        *free_tier = (gint) tier;
    } else {
      held++;
    }
    close (f);                  /* and with it a lock taken to look */
  }
  return held;
}

gint
gst_avhw_vk_claim (const gchar * dir, const gchar * key, guint n_queues,
    gint avoid, gint * fd)
{
  guint k, attempt;

  *fd = -1;
  if (!dir || !key || !*key || strchr (key, G_DIR_SEPARATOR))
    return -1;
  /* another process may take the chosen tier first: look again */
  for (attempt = 0; attempt < 4; attempt++) {
    gint best = -1, best_held = G_MAXINT, best_tier = -1, f;

    for (k = 0; k < n_queues; k++) {
      gint free_tier, held = count_held (dir, key, k, &free_tier);

      if (held < 0)
        return -1;
      if (free_tier >= 0 && (held < best_held || (held == best_held
                  && best == avoid && (gint) k != avoid))) {
        best = (gint) k;
        best_held = held;
        best_tier = free_tier;
      }
    }
    if (best < 0)
      return -1;
    f = open_claim_file (dir, key, (guint) best, (guint) best_tier);
    if (f < 0)
      return -1;
    if (flock (f, LOCK_EX | LOCK_NB) == 0) {
      *fd = f;
      return best;
    }
    close (f);
  }
  return -1;
}

void
gst_avhw_vk_unclaim (gint fd)
{
  if (fd >= 0)
    close (fd);                 /* drops the flock */
}

typedef struct
{
  gchar *key;
  gint index, fd;
} ThreadClaim;

static void
thread_claims_free (gpointer data)
{
  GArray *claims = data;
  guint i;

  for (i = 0; i < claims->len; i++) {
    ThreadClaim *c = &g_array_index (claims, ThreadClaim, i);

    gst_avhw_vk_unclaim (c->fd);
    g_free (c->key);
  }
  g_array_free (claims, TRUE);
}

static GPrivate thread_claims = G_PRIVATE_INIT (thread_claims_free);

gint
gst_avhw_vk_thread_claim (const gchar * dir, const gchar * key,
    guint n_queues, gint avoid)
{
  GArray *claims = g_private_get (&thread_claims);
  ThreadClaim c;
  guint i;

  if (!claims) {
    claims = g_array_new (FALSE, FALSE, sizeof (ThreadClaim));
    g_private_set (&thread_claims, claims);
  }
  for (i = 0; i < claims->len; i++) {
    if (g_str_equal (g_array_index (claims, ThreadClaim, i).key, key))
      return g_array_index (claims, ThreadClaim, i).index;
  }
  /* none yet (or none free last time): try again */
  c.index = gst_avhw_vk_claim (dir, key, n_queues, avoid, &c.fd);
  if (c.index < 0)
    return -1;
  c.key = g_strdup (key);
  g_array_append_val (claims, c);
  return c.index;
}
