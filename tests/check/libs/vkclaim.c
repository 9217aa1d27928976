/* gst-avhw tests: decode queues claimed across processes and threads
 * (backends/vulkan/gstavhwvulkanqueueclaim.c)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * NVIDIA decodes queue k of every VkDevice, in every process, on one
 * engine, so the vulkan backend's lane 0 and its lane-1 threads each claim
 * a queue index no one else holds. A claim is the lowest index free on
 * the machine, is seen by other processes, and ends with its descriptor,
 * its process or, for a thread's, its thread.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <unistd.h>
#include <sys/wait.h>
#include "avhw-test-utils.h"
#include "gstavhwvulkanqueueclaim.h"

#define KEY "00112233445566778899aabbccddeeff"

static gchar *dir;

static void
setup (void)
{
  dir = g_dir_make_tmp ("avhw-vkclaim-XXXXXX", NULL);
  fail_unless (dir != NULL);
}

static void
teardown (void)
{
  avhw_test_remove_dir (dir);
  g_clear_pointer (&dir, g_free);
}

GST_START_TEST (test_fewest_claims)
{
  gint fd[3 * GST_AVHW_VK_CLAIM_TIERS + 1], extra, again, i;

  fail_unless_equals_int (gst_avhw_vk_claim (dir, KEY, 3, -1, &fd[0]), 0);
  fail_unless_equals_int (gst_avhw_vk_claim (dir, KEY, 3, -1, &fd[1]), 1);
  fail_unless_equals_int (gst_avhw_vk_claim (dir, KEY, 3, -1, &fd[2]), 2);
  /* each held once, even by this process: round again */
  fail_unless_equals_int (gst_avhw_vk_claim (dir, KEY, 3, -1, &fd[3]), 0);
  /* another device's indices are its own */
  fail_unless_equals_int (gst_avhw_vk_claim (dir, "ff", 3, -1, &extra), 0);
  gst_avhw_vk_unclaim (extra);

  /* 2 held by none now, 1 once, 0 twice */
  gst_avhw_vk_unclaim (fd[2]);
  fail_unless_equals_int (gst_avhw_vk_claim (dir, KEY, 3, -1, &fd[2]), 2);
  fail_unless_equals_int (gst_avhw_vk_claim (dir, KEY, 3, -1, &again), 1);
  gst_avhw_vk_unclaim (again);

  /* every index full: none */
  for (i = 4; i < 3 * GST_AVHW_VK_CLAIM_TIERS; i++)
    fail_unless (gst_avhw_vk_claim (dir, KEY, 3, -1, &fd[i]) >= 0);
  fail_unless_equals_int (gst_avhw_vk_claim (dir, KEY, 3, -1, &extra), -1);
  fail_unless_equals_int (extra, -1);
  for (i = 0; i < 3 * GST_AVHW_VK_CLAIM_TIERS; i++)
    gst_avhw_vk_unclaim (fd[i]);
  gst_avhw_vk_unclaim (-1);
}

GST_END_TEST;

/* Forks a process that claims one of @n and exits with the index + 1
 * (0: none); the index it got, once it has ended. */
static gint
child_claim (guint n)
{
  pid_t pid = fork ();
  gint status = -1, fd;

  fail_unless (pid >= 0);
  if (pid == 0)
    _exit (gst_avhw_vk_claim (dir, KEY, n, -1, &fd) + 1);
  fail_unless_equals_int (waitpid (pid, &status, 0), pid);
  fail_unless (WIFEXITED (status));
  return WEXITSTATUS (status) - 1;
}

GST_START_TEST (test_other_processes)
{
  gint fd[2], mine;

  fail_unless_equals_int (gst_avhw_vk_claim (dir, KEY, 4, -1, &fd[0]), 0);
  fail_unless_equals_int (gst_avhw_vk_claim (dir, KEY, 4, -1, &fd[1]), 1);
  /* another process sees this one's claims */
  fail_unless_equals_int (child_claim (4), 2);
  /* and its own ended with it: 2 is free again */
  fail_unless_equals_int (child_claim (4), 2);
  fail_unless_equals_int (gst_avhw_vk_claim (dir, KEY, 4, -1, &mine), 2);
  /* all of 0-2 held once: the child shares the lowest */
  fail_unless_equals_int (child_claim (3), 0);
  gst_avhw_vk_unclaim (mine);
  gst_avhw_vk_unclaim (fd[0]);
  gst_avhw_vk_unclaim (fd[1]);
}

GST_END_TEST;

/* Fourteen pipelines in one process: lane 0 claims a queue once yet takes
 * a second session there, so the lane-1 threads break ties away from it
 * (3 queues here: 1 + 2 + 2 + 1 + 2 + 2 would put three on queue 0). */
GST_START_TEST (test_avoid_breaks_ties)
{
  gint fd[6], i;

  fail_unless_equals_int (gst_avhw_vk_claim (dir, KEY, 3, -1, &fd[0]), 0);
  fail_unless_equals_int (gst_avhw_vk_claim (dir, KEY, 3, 0, &fd[1]), 1);
  fail_unless_equals_int (gst_avhw_vk_claim (dir, KEY, 3, 0, &fd[2]), 2);
  /* every queue once: not queue 0 */
  fail_unless_equals_int (gst_avhw_vk_claim (dir, KEY, 3, 0, &fd[3]), 1);
  fail_unless_equals_int (gst_avhw_vk_claim (dir, KEY, 3, 0, &fd[4]), 2);
  /* queue 0 alone the least held: it, avoided or not */
  fail_unless_equals_int (gst_avhw_vk_claim (dir, KEY, 3, 0, &fd[5]), 0);
  for (i = 0; i < 6; i++)
    gst_avhw_vk_unclaim (fd[i]);
}

GST_END_TEST;

GST_START_TEST (test_no_place)
{
  gint fd = 5;

  /* a missing directory, or a key that would name another one */
  fail_unless_equals_int (gst_avhw_vk_claim ("/nonexistent/avhw", KEY, 2, -1,
          &fd), -1);
  fail_unless_equals_int (fd, -1);
  fail_unless_equals_int (gst_avhw_vk_claim (dir, "../x", 2, -1, &fd), -1);
  fail_unless_equals_int (gst_avhw_vk_claim (dir, "", 2, -1, &fd), -1);
  fail_unless (gst_avhw_vk_claim_dir () != NULL);
}

GST_END_TEST;

typedef struct
{
  GAsyncQueue *out, *go;
} Holder;

/* claims twice (the same index both times), says which, and holds it
 * until told to end */
static gpointer
hold_thread_claim (gpointer data)
{
  Holder *h = data;
  gint q = gst_avhw_vk_thread_claim (dir, KEY, 2, -1);

  fail_unless_equals_int (gst_avhw_vk_thread_claim (dir, KEY, 2, -1), q);
  g_async_queue_push (h->out, GINT_TO_POINTER (q + 1));
  g_async_queue_pop (h->go);
  return NULL;
}

static gpointer
claim_once (gpointer data)
{
  return GINT_TO_POINTER (gst_avhw_vk_thread_claim (dir, KEY, 2, -1) + 1);
}

GST_START_TEST (test_threads)
{
  Holder h[2];
  GThread *t[2];
  gint q[2], i;

  for (i = 0; i < 2; i++) {
    h[i].out = g_async_queue_new ();
    h[i].go = g_async_queue_new ();
    t[i] = g_thread_new ("holder", hold_thread_claim, &h[i]);
    q[i] = GPOINTER_TO_INT (g_async_queue_pop (h[i].out)) - 1;
  }
  fail_unless_equals_int (q[0], 0);
  fail_unless_equals_int (q[1], 1);
  /* a third thread finds 0 and 1 held once each and takes 0; its end
   * gives the claim back, else a fourth would take 1 */
  fail_unless_equals_int (GPOINTER_TO_INT (g_thread_join (g_thread_new
              ("third", claim_once, NULL))) - 1, 0);
  fail_unless_equals_int (GPOINTER_TO_INT (g_thread_join (g_thread_new
              ("fourth", claim_once, NULL))) - 1, 0);
  /* the second holder's end frees 1 */
  g_async_queue_push (h[1].go, GINT_TO_POINTER (1));
  g_thread_join (t[1]);
  fail_unless_equals_int (GPOINTER_TO_INT (g_thread_join (g_thread_new
              ("fifth", claim_once, NULL))) - 1, 1);
  g_async_queue_push (h[0].go, GINT_TO_POINTER (1));
  g_thread_join (t[0]);
  for (i = 0; i < 2; i++) {
    g_async_queue_unref (h[i].out);
    g_async_queue_unref (h[i].go);
  }
}

GST_END_TEST;

static Suite *
vkclaim_suite (void)
{
  Suite *s = suite_create ("vkclaim");
  TCase *tc = tcase_create ("general");

  tcase_add_checked_fixture (tc, setup, teardown);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_fewest_claims);
  tcase_add_test (tc, test_other_processes);
  tcase_add_test (tc, test_avoid_breaks_ties);
  tcase_add_test (tc, test_no_place);
  tcase_add_test (tc, test_threads);
  return s;
}

GST_CHECK_MAIN (vkclaim);
