/* gst-avhw tests: shared helpers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stdlib.h>
#include <string.h>
#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <gst/avhw/gstavhw-impl.h>

/* Removes the files of the folder @dir (no subfolders), then @dir. */
static inline void
avhw_test_remove_dir (const gchar * dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const gchar *n;

  while (d && (n = g_dir_read_name (d))) {
    gchar *f = g_build_filename (dir, n, NULL);

    g_unlink (f);
    g_free (f);
  }
  if (d)
    g_dir_close (d);
  g_rmdir (dir);
}

/* Sets @p to PLAYING and fails the test unless it reaches EOS within a
 * minute (an error message's text in the failure). @p stays PLAYING. */
static inline void
avhw_test_play_to_eos (GstElement * p)
{
  GstMessage *msg;
  GError *err = NULL;

  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
    gst_message_parse_error (msg, &err, NULL);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
      "no EOS: %s", err ? err->message : "timed out");
  gst_message_unref (msg);
}

/* The "active-device" of the element @name of the bin @p: a new
 * reference, or NULL when it has none. */
static inline GstAvhwDevice *
avhw_test_active_device (GstElement * p, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (p), name);
  GstAvhwDevice *dev = NULL;

  fail_unless (e != NULL, "no element %s", name);
  g_object_get (e, "active-device", &dev, NULL);
  gst_object_unref (e);
  return dev;
}

/* Exit 77 (Meson: SKIP) naming the reason when no device matches
 * @device_string. Uses the cheap enumeration only: opening a device in the
 * parent of check's forked tests would share its threads with them. */
static inline void
avhw_test_require_device (const gchar * device_string)
{
  GList *list = gst_avhw_backend_list (), *l;
  GString *why = g_string_new (NULL);
  gboolean found = FALSE;

  for (l = list; l && !found; l = l->next) {
    const gchar *name = gst_avhw_backend_get_name (l->data);
    gchar *reason = NULL;

    if (g_strcmp0 (device_string, "auto") != 0
        && !g_str_has_prefix (device_string, name))
      continue;
    found = gst_avhw_backend_get_n_devices (l->data, &reason) > 0;
    if (!found)
      g_string_append_printf (why, " %s: %s;", name, reason);
    g_free (reason);
  }
  g_list_free_full (list, gst_object_unref);
  if (!found) {
    g_print ("SKIP: no avhw device for \"%s\":%s\n", device_string,
        why->len ? why->str : " backend not installed");
    exit (77);
  }
  g_string_free (why, TRUE);
}

/* For test backends of one device. */
static inline guint
avhw_test_one_device (GstAvhwBackend * b, gchar ** reason)
{
  return 1;
}

/* For test backends with no decoder or encoder candidates: avhwdec
 * decodes in software, avhwenc uses its fallback. */
static inline void
avhw_test_no_codecs (GstAvhwBackend * b, enum AVCodecID id, GPtrArray * out)
{
}

/* For test backends standing in for a device with a hardware H.264
 * decoder: FFmpeg's h264 as its candidate (opened on the device as a
 * hardware decoder would be; the pictures decode in software here). */
static inline void
avhw_test_h264_decoders (GstAvhwBackend * b, enum AVCodecID id,
    GPtrArray * out)
{
  if (id == AV_CODEC_ID_H264)
    g_ptr_array_add (out, (gpointer) avcodec_find_decoder_by_name ("h264"));
}

/* For test backends on FFmpeg's vulkan device: only two common formats.
 * The default list (FFmpeg's constraints) holds some whose probing crashes
 * FFmpeg 5.1 on NVIDIA's Vulkan driver, which the real vulkan backend
 * leaves out too. */
static inline GArray *
avhw_test_common_sw_formats (GstAvhwBackend * b, AVBufferRef * device_ctx)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (gint));
  gint f[] = { AV_PIX_FMT_YUV420P, AV_PIX_FMT_NV12 };

  g_array_append_vals (a, f, G_N_ELEMENTS (f));
  return a;
}

/* The members of such an H.264 test backend, on FFmpeg's vulkan device
 * (after gst_avhw_backend_class_init_contract()). */
static inline void
avhw_test_h264_backend_setup (GstAvhwBackendClass * b, const gchar * name,
    const gchar * caps_feature)
{
  b->name = name;
  b->hw_device_type = "vulkan";
  b->hw_pix_fmt = "vulkan";
  b->caps_feature = caps_feature;
  b->get_n_devices = avhw_test_one_device;
  b->get_decoders = avhw_test_h264_decoders;
  b->get_sw_formats = avhw_test_common_sw_formats;
}
