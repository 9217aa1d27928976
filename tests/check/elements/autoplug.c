/* gst-avhw tests: decodebin picks avhw decoders when a device decodes the
 * codec in hardware, and software otherwise; encodebin picks avhw encoders
 * when a device encodes the codec in hardware
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <glib/gstdio.h>

#include "../avhw-test-utils.h"

/* A backend on FFmpeg's vulkan device whose decoder candidates include
 * FFmpeg's h264 decoder, standing in for a device with a hardware H.264
 * decoder (FFmpeg 5.1 has no Vulkan decoder; frames decode through
 * avhwdec's software path). */
typedef struct
{
  GstAvhwBackend parent;
} GstAvhwHwtestBackend;
typedef struct
{
  GstAvhwBackendClass parent;
} GstAvhwHwtestBackendClass;
static GType gst_avhw_hwtest_backend_get_type (void);
G_DEFINE_TYPE (GstAvhwHwtestBackend, gst_avhw_hwtest_backend,
    GST_TYPE_AVHW_BACKEND);

/* ... and an H.264 encoder: libx264 as its candidate, standing in for a
 * hardware encoder the backend knows of from the driver. */
static void
hwtest_get_encoders (GstAvhwBackend * b, enum AVCodecID id, GPtrArray * out)
{
  if (id == AV_CODEC_ID_H264)
    g_ptr_array_add (out, (gpointer) avcodec_find_encoder_by_name ("libx264"));
}

static void
hwtest_query_encoder (GstAvhwBackend * b, guint index, enum AVCodecID id,
    GstAvhwEncoderCaps * caps)
{
  caps->supported = id == AV_CODEC_ID_H264;
  if (!caps->supported)
    caps->reason = g_strdup ("the test device encodes H.264 only");
}

static void
gst_avhw_hwtest_backend_class_init (GstAvhwHwtestBackendClass * k)
{
  GstAvhwBackendClass *b = GST_AVHW_BACKEND_CLASS (k);

  gst_avhw_backend_class_init_contract (k);
  avhw_test_h264_backend_setup (b, "hwtest", "memory:AVHWHwtest");
  b->get_encoders = hwtest_get_encoders;
  b->query_encoder = hwtest_query_encoder;
}

static void
gst_avhw_hwtest_backend_init (GstAvhwHwtestBackend * b)
{
}

static gboolean
plugin_init (GstPlugin * plugin)
{
  return gst_avhw_backend_register (plugin,
      gst_avhw_hwtest_backend_get_type ());
}

static gchar *clip;

/* Whether @e is one of avhw's decoder (encoder) elements itself: of a
 * subclass of their class, not a bin around one. */
static gboolean
is_avhw_codec_element (GstElement * e, gboolean encoder)
{
  GType base = g_type_from_name (encoder ? "GstAvhwBaseEnc" : "GstAvhwBaseDec");

  return base && g_type_is_a (G_OBJECT_TYPE (e), base) && !GST_IS_BIN (e);
}

static void
on_element (GstBin * bin, GstBin * sub, GstElement * e, GPtrArray * names)
{
  GstElementFactory *f = gst_element_get_factory (e);

  if (f)
    g_ptr_array_add (names, g_strdup (GST_OBJECT_NAME (f)));
  if (is_avhw_codec_element (e, FALSE))
    g_ptr_array_add (names, g_strdup ("(an avhw decoder)"));
}

/* Runs @p to EOS (an error fails the test) and stops it; the frames its
 * fakesink named "sink" rendered. */
static guint
run_count_rendered (GstElement * p)
{
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  GstStructure *st = NULL;
  GstMessage *msg;
  guint64 n = 0;

  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  g_object_get (sink, "stats", &st, NULL);
  gst_structure_get_uint64 (st, "rendered", &n);
  gst_structure_free (st);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (sink);
  return (guint) n;
}

/* Decodes the clip with decodebin; returns the factories it used. */
static GPtrArray *
decodebin_factories (guint * frames)
{
  gchar *desc = g_strdup_printf ("filesrc location=%s ! decodebin name=d ! "
      "fakesink name=sink signal-handoffs=true", clip);
  GstElement *p = gst_parse_launch (desc, NULL);
  GstElement *d = gst_bin_get_by_name (GST_BIN (p), "d");
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);

  g_signal_connect (d, "deep-element-added", G_CALLBACK (on_element), names);
  *frames = run_count_rendered (p);
  gst_object_unref (d);
  gst_object_unref (p);
  g_free (desc);
  return names;
}

/* The frames of the MP4 file @path, decoded by GStreamer's software
 * decoder. */
static guint
count_decoded (const gchar * path)
{
  gchar *desc = g_strdup_printf ("filesrc location=%s ! qtdemux ! h264parse "
      "! avdec_h264 ! fakesink name=sink", path);
  GstElement *p = gst_parse_launch (desc, NULL);
  guint n;

  fail_unless (p != NULL, "%s", desc);
  n = run_count_rendered (p);
  gst_object_unref (p);
  g_free (desc);
  return n;
}

static gboolean
has (GPtrArray * names, const gchar * name)
{
  guint i;

  for (i = 0; i < names->len; i++)
    if (g_str_equal (g_ptr_array_index (names, i), name))
      return TRUE;
  return FALSE;
}

static gboolean
has_real_autodec (GPtrArray * names)
{
  guint i;

  for (i = 0; i < names->len; i++) {
    const gchar *n = g_ptr_array_index (names, i);
    if (g_str_has_prefix (n, "avhw") && g_str_has_suffix (n, "h264dec"))
      return TRUE;
  }
  return FALSE;
}

/* @backend registered avhw<backend><codec>dec (@encoder: ...enc) exactly
 * where one of its devices decodes (encodes) @id in hardware, at the
 * autoplugging rank. */
static void
check_feature (GstAvhwBackend * backend, enum AVCodecID id, gboolean encoder)
{
  gchar *name = g_strdup_printf ("avhw%s%s%s",
      gst_avhw_backend_get_name (backend), gst_avhw_codec_get_nick (id),
      encoder ? "enc" : "dec");
  GstElementFactory *f = gst_element_factory_find (name);
  guint d, n_dev = gst_avhw_backend_get_n_devices (backend, NULL);
  gboolean does = FALSE;

  for (d = 0; d < n_dev; d++)
    does |= encoder ? gst_avhw_backend_device_encodes (backend, d, id, NULL) :
        gst_avhw_backend_device_decodes (backend, d, id, NULL);
  if (does) {
    fail_unless (f != NULL, "%s missing", name);
    fail_unless_equals_int (gst_plugin_feature_get_rank
        (GST_PLUGIN_FEATURE (f)), encoder ? GST_AVHW_AUTOENC_RANK :
        GST_AVHW_AUTODEC_RANK);
  } else {
    fail_unless (f == NULL, "%s registered without hardware", name);
  }
  g_print ("%s: %s\n", name, f ? "registered" : "not registered");
  gst_clear_object (&f);
  g_free (name);
}

/* Each present backend registered a decoder exactly for the codecs it
 * decodes in hardware, and an encoder exactly for those it encodes. */
GST_START_TEST (test_features_match_hardware)
{
  GList *list = gst_avhw_backend_list (), *l;
  guint n, i;
  const enum AVCodecID *ids = gst_avhw_codec_list (&n);

  for (l = list; l; l = l->next)
    for (i = 0; i < n; i++) {
      check_feature (l->data, ids[i], FALSE);
      check_feature (l->data, ids[i], TRUE);
    }
  g_list_free_full (list, gst_object_unref);
}

GST_END_TEST;

/* The registry's scan keeps, in each backend plugin's cache data, the
 * codecs it registered autoplugging elements for; a process that loads the
 * plugin registers exactly those, from that list, without probing the
 * devices again. */
GST_START_TEST (test_features_from_scan)
{
  GList *plugins = gst_registry_get_plugin_list (gst_registry_get ()), *l;
  guint checked = 0;

  for (l = plugins; l; l = l->next) {
    GstPlugin *p = l->data, *loaded;
    const GstStructure *data = gst_plugin_get_cache_data (p);
    const gchar *kinds[] = { "autoplug-decoders", "autoplug-encoders" };
    guint k;

    if (!data || !gst_structure_has_field (data, kinds[0]))
      continue;
    loaded = gst_plugin_load (p);
    fail_unless (loaded != NULL, "%s does not load", gst_plugin_get_name (p));
    for (k = 0; k < G_N_ELEMENTS (kinds); k++) {
      gchar **nicks = g_strsplit (gst_structure_get_string (data, kinds[k]),
          ";", -1);
      GList *features = gst_registry_get_feature_list_by_plugin
          (gst_registry_get (), gst_plugin_get_name (p)), *f;
      guint n_codec = 0, n_nicks = g_strv_length (nicks);

      for (f = features; f; f = f->next) {
        const gchar *name = gst_plugin_feature_get_name (f->data);

        if (GST_IS_ELEMENT_FACTORY (f->data) && g_str_has_suffix (name,
                k == 0 ? "dec" : "enc")) {
          n_codec++;
          /* a live element class, registered at load */
          fail_unless (gst_element_factory_get_element_type (f->data) != 0,
              "%s: no type after loading", name);
        }
      }
      fail_unless_equals_int (n_codec, n_nicks);
      g_print ("%s: %s %s\n", gst_plugin_get_name (p), kinds[k],
          n_nicks ? gst_structure_get_string (data, kinds[k]) : "(none)");
      gst_plugin_feature_list_free (features);
      g_strfreev (nicks);
    }
    gst_object_unref (loaded);
    checked++;
  }
  gst_plugin_list_free (plugins);
  fail_unless (checked > 0, "no backend plugin keeps its scan's codecs");
}

GST_END_TEST;

/* No present device decodes H.264 in hardware here: software it is. */
GST_START_TEST (test_software_without_hardware)
{
  GstAvhwDevice *dev = gst_avhw_device_open ("auto", NULL, NULL);
  GPtrArray *c = gst_avhw_backend_get_decoders (gst_avhw_device_get_backend
      (dev), AV_CODEC_ID_H264);
  GPtrArray *names;
  guint frames;

  if (c->len > 0) {
    g_print ("%s decodes h264 in hardware here: not applicable\n",
        gst_avhw_device_get_name (dev));
  } else {
    names = decodebin_factories (&frames);
    fail_unless (has (names, "avdec_h264"), "decodebin did not use avdec_h264");
    fail_unless_equals_int (frames, 10);
    g_ptr_array_unref (names);
  }
  g_ptr_array_unref (c);
  gst_object_unref (dev);
}

GST_END_TEST;

/* The raw side of @f lists the backend's memory and system memory, with
 * formats, and no (ANY): what gst-inspect-1.0 shows. */
static void
check_raw_template (GstElementFactory * f, GstPadDirection dir)
{
  const GList *l;
  gboolean device = FALSE, system = FALSE;

  for (l = gst_element_factory_get_static_pad_templates (f); l; l = l->next) {
    GstStaticPadTemplate *t = l->data;
    GstCaps *caps;
    guint i;

    if (t->direction != dir)
      continue;
    caps = gst_static_caps_get (&t->static_caps);
    for (i = 0; i < gst_caps_get_size (caps); i++) {
      GstCapsFeatures *cf = gst_caps_get_features (caps, i);

      fail_if (gst_caps_features_is_any (cf), "%" GST_PTR_FORMAT, caps);
      fail_unless (gst_structure_has_field (gst_caps_get_structure (caps, i),
              "format"));
      device |= gst_caps_features_contains (cf, "memory:AVHWHwtest");
      system |= gst_caps_features_is_equal (cf,
          GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY);
    }
    gst_caps_unref (caps);
  }
  fail_unless (device && system, "%s: its device memory and system memory",
      gst_plugin_feature_get_name (GST_PLUGIN_FEATURE (f)));
}

/* Registers the hwtest backend's plugin: its avhwhwtesth264@kind ("dec"
 * or "enc") must come with it, ranked above primary, and no H.265 one. */
static void
register_hwtest (const gchar * kind)
{
  gchar *h264 = g_strdup_printf ("avhwhwtesth264%s", kind);
  gchar *h265 = g_strdup_printf ("avhwhwtesth265%s", kind);
  GstElementFactory *f;

  static gboolean registered;

  /* once per process, as a plugin is loaded: registering it again makes
   * new factories, and the element classes made with the first ones keep
   * pointers to them */
  if (!registered)
    fail_unless (gst_plugin_register_static (GST_VERSION_MAJOR,
            GST_VERSION_MINOR, "avhwhwtest", "test backend", plugin_init,
            VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_NAME,
            GST_PACKAGE_ORIGIN));
  registered = TRUE;
  f = gst_element_factory_find (h264);
  fail_unless (f != NULL, "%s not registered", h264);
  fail_unless (gst_plugin_feature_get_rank (GST_PLUGIN_FEATURE (f)) >
      GST_RANK_PRIMARY);
  check_raw_template (f, g_str_equal (kind, "dec") ? GST_PAD_SRC :
      GST_PAD_SINK);
  gst_object_unref (f);
  fail_if (gst_element_factory_find (h265) != NULL, "%s registered", h265);
  g_free (h264);
  g_free (h265);
}

/* A backend whose device decodes H.264 registers avhwhwtesth264dec at
 * plugin scan, above avdec_h264, and decodebin takes it. */
GST_START_TEST (test_hardware_decoder_is_picked)
{
  GPtrArray *names;
  guint frames;

  register_hwtest ("dec");

  names = decodebin_factories (&frames);
  /* Where a real device decodes H.264 too (avhwcudah264dec, same rank),
   * decodebin may take that one: either way an avhw decoder. */
  fail_unless (has (names, "avhwhwtesth264dec") || has_real_autodec (names),
      "decodebin picked no avhw decoder");
  /* the element itself decodes: no avhwdec inside a bin */
  fail_unless (has (names, "(an avhw decoder)"));
  fail_if (has (names, "avhwdec"));
  fail_if (has (names, "avdec_h264"));
  fail_unless_equals_int (frames, 10);
  g_ptr_array_unref (names);
  {
    /* its device defaults to its backend, in the property's spec too */
    GstElement *e = gst_element_factory_make ("avhwhwtesth264dec", NULL);
    GParamSpecString *spec;
    gchar *device = NULL;

    fail_unless (e != NULL);
    spec = (GParamSpecString *)
        g_object_class_find_property (G_OBJECT_GET_CLASS (e), "device");
    g_object_get (e, "device", &device, NULL);
    fail_unless_equals_string (device, "hwtest");
    fail_unless_equals_string (spec->default_value, "hwtest");
    g_object_set (e, "device", "auto", NULL);
    g_free (device);
    g_object_get (e, "device", &device, NULL);
    fail_unless_equals_string (device, "auto");
    g_free (device);
    gst_object_unref (e);
  }
}

GST_END_TEST;

/* The test backend's device encodes H.264: avhwhwtesth264enc is
 * registered above x264enc, nothing for H.265, and encodebin takes it for
 * an MP4/H.264 profile; the file has every frame. */
GST_START_TEST (test_hardware_encoder_is_picked)
{
  gchar *tmp = g_dir_make_tmp ("avhw-autoenc-XXXXXX", NULL);
  gchar *out = g_build_filename (tmp, "out.mp4", NULL);
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=10 ! "
      "video/x-raw,width=64,height=48,framerate=25/1 ! encodebin name=e "
      "profile=video/quicktime,variant=iso:video/x-h264 ! filesink "
      "location=%s", out);
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  GstElement *p, *e;
  GstMessage *msg;
  GError *err = NULL;

  register_hwtest ("enc");

  p = gst_parse_launch (desc, &err);
  fail_unless (p != NULL, "%s: %s", desc, err ? err->message : "");
  e = gst_bin_get_by_name (GST_BIN (p), "e");
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
      "encodebin did not reach EOS");
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  {
    /* encodebin made its encoder when the pad was requested, at parse
     * time: what it holds now */
    GstIterator *it = gst_bin_iterate_recurse (GST_BIN (e));
    GValue v = G_VALUE_INIT;

    while (gst_iterator_next (it, &v) == GST_ITERATOR_OK) {
      GstElement *el = g_value_get_object (&v);
      GstElementFactory *ef = gst_element_get_factory (el);

      g_print ("encodebin used %s (%s)\n", G_OBJECT_TYPE_NAME (el),
          ef ? GST_OBJECT_NAME (ef) : "no factory");
      g_ptr_array_add (names, g_strdup (G_OBJECT_TYPE_NAME (el)));
      if (is_avhw_codec_element (el, TRUE))
        g_ptr_array_add (names, g_strdup ("(an avhw encoder)"));
      g_value_reset (&v);
    }
    g_value_unset (&v);
    gst_iterator_free (it);
  }
  /* the test backend's encoder, itself of avhwenc's class (no bin around
   * one), no x264enc (a real device that encodes H.264 has the same rank
   * and may be taken instead: an avhw encoder either way) */
  fail_unless (has (names, "(an avhw encoder)"),
      "encodebin picked no avhw encoder");
  fail_if (has (names, "GstAvhwEnc"), "an avhwenc inside a bin");
  fail_if (has (names, "GstX264Enc"));
  fail_unless_equals_int (count_decoded (out), 10);
  g_ptr_array_unref (names);
  gst_object_unref (e);
  gst_object_unref (p);
  g_remove (out);
  g_rmdir (tmp);
  g_free (out);
  g_free (tmp);
  g_free (desc);
}

GST_END_TEST;

static Suite *
autoplug_suite (void)
{
  Suite *s = suite_create ("avhw-autoplug");
  TCase *tc = tcase_create ("general");
  GstElementFactory *x264 = gst_element_factory_find ("x264enc");
  gchar *tmp, *desc;
  GstElement *p;
  GstMessage *msg;

  avhw_test_require_device ("vulkan");
  if (!x264) {
    g_print ("SKIP: needs x264enc (gst-plugins-ugly) to make a clip\n");
    exit (77);
  }
  gst_object_unref (x264);
  tmp = g_dir_make_tmp ("avhw-autoplug-XXXXXX", NULL);
  clip = g_build_filename (tmp, "clip.h264", NULL);
  desc = g_strdup_printf ("videotestsrc num-buffers=10 ! video/x-raw,width=64,"
      "height=48 ! x264enc speed-preset=ultrafast ! h264parse ! "
      "video/x-h264,stream-format=byte-stream ! filesink location=%s", clip);
  p = gst_parse_launch (desc, NULL);
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (!msg || GST_MESSAGE_TYPE (msg) != GST_MESSAGE_EOS) {
    g_print ("could not make the clip\n");
    exit (1);
  }
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  g_free (desc);
  g_free (tmp);

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_features_match_hardware);
  tcase_add_test (tc, test_features_from_scan);
  tcase_add_test (tc, test_software_without_hardware);
  tcase_add_test (tc, test_hardware_decoder_is_picked);
  {
    /* gst-plugins-base's encoding plugin: the GPU machine's minimal
     * GStreamer bundle has none */
    GstElementFactory *f = gst_element_factory_find ("encodebin");

    if (f)
      tcase_add_test (tc, test_hardware_encoder_is_picked);
    else
      g_print ("case left out: test_hardware_encoder_is_picked needs "
          "encodebin\n");
    gst_clear_object (&f);
  }
  return s;
}

GST_CHECK_MAIN (autoplug);
