/* gst-avhw: opened codec contexts kept across pipelines, per device
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include "gstavhw-impl.h"
#include "gstavhw-private.h"
#include "gstavhwcodeccache.h"

GST_DEBUG_CATEGORY_STATIC (avhw_codec_cache_debug);
#define GST_CAT_DEFAULT avhw_codec_cache_debug

/**
 * SECTION:gstavhwcodeccache
 * @title: Decoder cache
 * @short_description: opened decoders that outlive their pipeline
 *
 * Opening a hardware decoder and closing it again cost more than decoding a
 * short clip: on NVDEC, creating the decoder and its surfaces takes tens of
 * milliseconds and destroying them over a hundred. A decoder element hands
 * its opened #AVCodecContext to gst_avhw_device_give_decoder() when its
 * stream ends, with a key that says what it was opened for (decoder, frame
 * threads, extra surfaces, the stream's codec data...), once no frame of
 * that stream is left in it: flushed (avcodec_flush_buffers()), or ended in
 * a way the element that takes it back knows how to continue from (avhwdec
 * joins H.264 streams: the NVDEC decoder survives, which a flush would
 * destroy). The cache keeps it as it is, up to
 * gst_avhw_cache_set_decoders_limit() per device, least recently used out
 * first. By default (%GST_AVHW_DECODERS_CACHE_AUTO) that limit is
 * %GST_AVHW_DECODERS_CACHE_DEFAULT_LIMIT or, where more keyed decoders
 * were open on a device at once, that many: seven pipelines running at
 * once each find theirs kept, as do the sessions of `parallel=7`. The next decoder on that device with the same key takes it
 * with gst_avhw_device_take_decoder() instead of opening one.
 *
 * Contexts that are not to be kept (no key, limit 0, over the limit, reuse
 * off with gst_avhw_cache_set_reuse() or `GST_AVHW_REUSE=0`) are freed at
 * once. Both happen in the caller's thread: freeing NVDEC decoders on a
 * background thread made the next pipeline's decoder creation wait for the
 * destroy (time to first frame 62 -> 200 ms on the H200, run 32) and raced
 * with the CUDA driver's own teardown at process exit.
 * gst_avhw_cache_clear() frees every kept decoder.
 */

typedef struct
{
  GstAvhwDevice *device;
  GstAvhwDecoderKey key;        /* what the context was opened for */
  AVCodecContext *ctx;
} Entry;

typedef struct
{
  guint open;                   /* keyed decoders open now */
  guint peak;                   /* the most open at once */
} Load;

static GMutex lock;
static GQueue lru = G_QUEUE_INIT;       /* Entry*, most recently given first */
static guint limit = GST_AVHW_DECODERS_CACHE_AUTO;
static guint64 hits, misses;
/* device name ("cuda:0") -> Load*: the same hardware under several
 * GstAvhwDevice objects counts once */
static GHashTable *loads;

static void
entry_free (Entry * e)
{
  avcodec_free_context (&e->ctx);
  gst_clear_object (&e->device);
  g_free (e);
}

/* lock held: how many decoders @device keeps */
static guint
limit_locked (GstAvhwDevice * device)
{
  Load *l;

  if (limit != GST_AVHW_DECODERS_CACHE_AUTO)
    return limit;
  l = loads ? g_hash_table_lookup (loads, gst_avhw_device_get_name (device))
      : NULL;
  return MAX (GST_AVHW_DECODERS_CACHE_DEFAULT_LIMIT, l ? l->peak : 0);
}

/* lock held: whether @device can keep one decoder more than it keeps and
 * has open */
static gboolean
has_room_locked (GstAvhwDevice * device)
{
  Load *l = loads ? g_hash_table_lookup (loads,
      gst_avhw_device_get_name (device)) : NULL;
  guint n = l ? l->open : 0;
  GList *i;

  /* as trim_locked() counts them */
  for (i = lru.head; i; i = i->next)
    if (((Entry *) i->data)->device == device)
      n++;
  return n + 1 <= limit_locked (device);
}

/* lock held: the entries past each device's limit, to free outside it */
static GList *
trim_locked (void)
{
  GHashTable *kept = g_hash_table_new (NULL, NULL);
  GList *evicted = NULL, *l;

  for (l = lru.head; l;) {
    GList *next = l->next;
    Entry *e = l->data;
    guint n = GPOINTER_TO_UINT (g_hash_table_lookup (kept, e->device));

    if (n >= limit_locked (e->device)) {
      evicted = g_list_prepend (evicted, e);
      g_queue_delete_link (&lru, l);
    } else {
      g_hash_table_insert (kept, e->device, GUINT_TO_POINTER (n + 1));
    }
    l = next;
  }
  g_hash_table_unref (kept);
  return evicted;
}

/**
 * gst_avhw_codec_cache_count_open: (skip)
 * @device: the device a keyed decoder was opened or taken on
 * @delta: +1 when it opens (taken or opened anew), -1 when it closes
 *   (given back or freed)
 *
 * Counts the keyed decoders open on each device, for the limit by default.
 */
void
gst_avhw_codec_cache_count_open (GstAvhwDevice * device, gint delta)
{
  const gchar *name = gst_avhw_device_get_name (device);
  Load *l;

  g_mutex_lock (&lock);
  if (!loads)
    loads = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  l = g_hash_table_lookup (loads, name);
  if (!l) {
    l = g_new0 (Load, 1);
    g_hash_table_insert (loads, g_strdup (name), l);
  }
  if (delta < 0 && l->open == 0)
    g_critical ("gst-avhw: more decoders closed than opened on %s", name);
  else
    l->open += delta;
  l->peak = MAX (l->peak, l->open);
  g_mutex_unlock (&lock);
}

/* lock held */
static void
ensure_init_locked (void)
{
  static gboolean done;

  if (done)
    return;
  done = TRUE;
  GST_DEBUG_CATEGORY_INIT (avhw_codec_cache_debug, "avhwcodeccache", 0,
      "gst-avhw decoders kept across pipelines");
}

/* A test's switch: software decoders take other codec data too. */
static gboolean
codec_data_follows_in_software (void)
{
  return g_strcmp0 (g_getenv ("GST_AVHW_DEC_CODEC_DATA_FOLLOWS"), "1") == 0;
}

/**
 * gst_avhw_decoder_key_init: (skip)
 * @key: (out caller-allocates): the key to fill
 * @ctx: the decoder context, set up and about to be opened (its threads,
 *   surfaces, compliance, reorder depth and extradata are read)
 * @codec: the decoder it is opened with
 * @hw: whether it is opened on the device
 *
 * Fills @key with what @ctx is opened for.
 */
void
gst_avhw_decoder_key_init (GstAvhwDecoderKey * key,
    const AVCodecContext * ctx, const AVCodec * codec, gboolean hw)
{
  g_return_if_fail (key != NULL && ctx != NULL && codec != NULL);

  memset (key, 0, sizeof (*key));
  key->codec = codec;
  key->hw = hw;
  key->thread_count = ctx->thread_count;
  key->thread_type = ctx->thread_type;
  key->extra_hw_frames = ctx->extra_hw_frames;
  key->strict_std_compliance = ctx->strict_std_compliance;
  key->has_b_frames = ctx->has_b_frames;
  /* FFmpeg's h264 and hevc decoders read new codec data from a packet's
   * side data (h264_decode_frame(), hevc_decode_frame(): 5.1 and 7.1).
   * Only hardware ones take another stream's: a software decoder costs
   * about a millisecond to open, and one kept from another stream keeps
   * that stream's reorder depth, which changed what a damaged stream gave
   * (elements/avhwdec-parallel's test_corrupt: 51 frames against 52).
   * GST_AVHW_DEC_CODEC_DATA_FOLLOWS=1 lets software ones too, so that the
   * path runs without hardware (tests/conformance: the MP4 clips). */
  key->extradata_follows = (hw || codec_data_follows_in_software ())
      && ((codec->id == AV_CODEC_ID_H264 && g_str_equal (codec->name, "h264"))
      || (codec->id == AV_CODEC_ID_HEVC && g_str_equal (codec->name, "hevc")));
  /* hevc_frame_start(): a new SPS makes FFmpeg's hevc call get_format
   * again, which re-creates the hwaccel (5.1 and 7.1) */
  key->sequence_reinit = hw && codec->id == AV_CODEC_ID_HEVC
      && g_str_equal (codec->name, "hevc");
  if (ctx->extradata_size > 0) {
    GChecksum *sha1 = g_checksum_new (G_CHECKSUM_SHA1);
    gsize len = sizeof (key->extradata_sha1);

    g_checksum_update (sha1, ctx->extradata, ctx->extradata_size);
    g_checksum_get_digest (sha1, key->extradata_sha1, &len);
    g_checksum_free (sha1);
    key->has_extradata = TRUE;
  }
}

/**
 * gst_avhw_decoder_key_equal: (skip)
 * @a: a key
 * @b: another key
 *
 * Returns: whether @a and @b are equal in every field
 */
gboolean
gst_avhw_decoder_key_equal (const GstAvhwDecoderKey * a,
    const GstAvhwDecoderKey * b)
{
  g_return_val_if_fail (a != NULL && b != NULL, FALSE);

  return gst_avhw_decoder_key_fits (a, b) && a->has_b_frames == b->has_b_frames
      && a->dpb_refs == b->dpb_refs && a->dpb_reorder == b->dpb_reorder
      && memcmp (a->extradata_sha1, b->extradata_sha1,
      sizeof (a->extradata_sha1)) == 0;
}

/**
 * gst_avhw_decoder_key_fits: (skip)
 * @kept: the key of a kept decoder
 * @want: the key of a decoder about to be opened
 *
 * Returns: whether the decoder opened for @kept can take the stream of
 *   @want, that is has the same decoder, threads, surfaces and compliance,
 *   codec data or none as @want (the same codec data unless it follows
 *   with the first packet), the same size and field coding, and a
 *   reorder depth and sequence needs at least those of @want
 */
gboolean
gst_avhw_decoder_key_fits (const GstAvhwDecoderKey * kept,
    const GstAvhwDecoderKey * want)
{
  g_return_val_if_fail (kept != NULL && want != NULL, FALSE);

  return kept->codec == want->codec && !kept->hw == !want->hw
      && kept->thread_count == want->thread_count
      && kept->thread_type == want->thread_type
      && kept->extra_hw_frames == want->extra_hw_frames
      && kept->strict_std_compliance == want->strict_std_compliance
      && kept->has_b_frames >= want->has_b_frames
      && kept->dpb_refs >= want->dpb_refs
      && kept->dpb_reorder >= want->dpb_reorder
      && kept->width == want->width && kept->height == want->height
      && !kept->field_coded == !want->field_coded
      && !kept->has_extradata == !want->has_extradata
      && !kept->extradata_follows == !want->extradata_follows
      && (kept->extradata_follows
      || memcmp (kept->extradata_sha1, want->extradata_sha1,
          sizeof (kept->extradata_sha1)) == 0);
}

/**
 * gst_avhw_decoder_key_to_string: (skip)
 * @key: a key
 *
 * Returns: (transfer full): @key for people (debug logs): "h264|hw|
 *   threads=2/0x3|extra=0|strict=1|reorder=0|dpb=3+2|1920x1080|codec-data=..."
 */
gchar *
gst_avhw_decoder_key_to_string (const GstAvhwDecoderKey * key)
{
  GString *s;
  guint i;

  g_return_val_if_fail (key != NULL && key->codec != NULL, NULL);

  s = g_string_new (NULL);
  g_string_append_printf (s, "%s|%s|threads=%d/0x%x|extra=%d|strict=%d|"
      "reorder=%d|dpb=%u+%u|%dx%d%s|codec-data%s=", key->codec->name,
      key->hw ? "hw" : "sw", key->thread_count, key->thread_type,
      key->extra_hw_frames, key->strict_std_compliance, key->has_b_frames,
      key->dpb_refs, key->dpb_reorder, key->width, key->height,
      key->field_coded ? "|fields" : "",
      key->extradata_follows ? "(follows)" : "");
  if (!key->has_extradata)
    g_string_append (s, "none");
  for (i = 0; key->has_extradata && i < sizeof (key->extradata_sha1); i++)
    g_string_append_printf (s, "%02x", key->extradata_sha1[i]);
  return g_string_free (s, FALSE);
}

/**
 * gst_avhw_device_take_decoder: (skip)
 * @device: the device the decoder is for
 * @key: what the decoder is opened for (gst_avhw_decoder_key_init())
 * @kept_key: (out caller-allocates) (optional): the key the decoder was
 *   given with, on a hit
 *
 * Takes a kept decoder out of the cache: one given with a key equal to
 * @key, else the one given last whose key fits @key
 * (gst_avhw_decoder_key_fits()). Where the codec data follows
 * (@key's extradata_follows), the caller gives the decoder its stream's
 * codec data with the first packet. A decoder that would set its hardware
 * up again for that codec data (@key's sequence_reinit) is not taken
 * while the device has room for one more (its kept and open decoders,
 * and this one, within the limit): a new one costs less than the old
 * one's destroy, and the kept one stays for streams of its own codec
 * data (clips of a few encoder settings in turn, the second time round).
 *
 * Returns: (transfer full) (nullable): an opened context for @device that
 *   can take @key's stream, or %NULL (a miss: open one)
 */
AVCodecContext *
gst_avhw_device_take_decoder (GstAvhwDevice * device,
    const GstAvhwDecoderKey * key, GstAvhwDecoderKey * kept_key)
{
  AVCodecContext *ctx = NULL;
  gchar *what;
  GList *l, *fit = NULL;

  g_return_val_if_fail (GST_IS_AVHW_DEVICE (device), NULL);
  g_return_val_if_fail (key != NULL, NULL);

  if (!gst_avhw_cache_get_reuse ())
    return NULL;
  g_mutex_lock (&lock);
  ensure_init_locked ();
  for (l = lru.head; l; l = l->next) {
    Entry *e = l->data;

    if (e->device != device || !gst_avhw_decoder_key_fits (&e->key, key))
      continue;
    if (!fit)
      fit = l;
    if (gst_avhw_decoder_key_equal (&e->key, key)) {
      fit = l;
      break;
    }
  }
  if (fit && key->sequence_reinit && !gst_avhw_decoder_key_equal
      (&((Entry *) fit->data)->key, key) && has_room_locked (device)) {
    GST_DEBUG ("%s: a kept decoder of other codec data would set its "
        "hardware up again: opening another", gst_avhw_device_get_name
        (device));
    fit = NULL;
  }
  if (fit) {
    Entry *e = fit->data;

    g_queue_delete_link (&lru, fit);
    ctx = e->ctx;
    e->ctx = NULL;
    if (kept_key)
      *kept_key = e->key;
    entry_free (e);
  }
  if (ctx)
    hits++;
  else
    misses++;
  g_mutex_unlock (&lock);
  if (gst_debug_category_get_threshold (GST_CAT_DEFAULT) >= GST_LEVEL_DEBUG) {
    what = gst_avhw_decoder_key_to_string (key);
    GST_DEBUG ("%s: %s for %s", gst_avhw_device_get_name (device),
        ctx ? "hit" : "miss", what);
    g_free (what);
  }
  return ctx;
}

/**
 * gst_avhw_device_give_decoder: (skip)
 * @device: the device @ctx was opened on
 * @key: (nullable): what @ctx was opened for (gst_avhw_device_take_decoder()
 *   matches it field by field), or %NULL for a context that must not be
 *   reused
 * @ctx: (transfer full): an opened decoder context, owned by the cache from
 *   now on; the caller's callbacks must outlive it (a plugin's functions do)
 *   and must not need its opaque, which is cleared, while it is kept
 *
 * Hands a decoder whose stream has ended, and which holds none of that
 * stream's frames any more (the caller flushed it, or ended the stream
 * otherwise), to the cache, which keeps it as it is or frees it (no key,
 * reuse off, limit 0). Either happens in the
 * caller's thread: see the section text for why not in the background.
 */
void
gst_avhw_device_give_decoder (GstAvhwDevice * device,
    const GstAvhwDecoderKey * key, AVCodecContext * ctx)
{
  GList *evicted = NULL;
  Entry *e;

  g_return_if_fail (GST_IS_AVHW_DEVICE (device));
  if (!ctx)
    return;
  ctx->opaque = NULL;
  if (!key || !gst_avhw_cache_get_reuse () || limit == 0) {
    avcodec_free_context (&ctx);
    return;
  }
  e = g_new0 (Entry, 1);
  e->device = gst_object_ref (device);
  e->key = *key;
  e->ctx = ctx;
  g_mutex_lock (&lock);
  ensure_init_locked ();
  g_queue_push_head (&lru, e);
  evicted = trim_locked ();
  g_mutex_unlock (&lock);
  if (evicted)
    GST_DEBUG ("%s: %u decoder(s) over the limit freed",
        gst_avhw_device_get_name (device), g_list_length (evicted));
  g_list_free_full (evicted, (GDestroyNotify) entry_free);
}

/* Frees every kept decoder. For gst_avhw_cache_clear(). */
void
gst_avhw_codec_cache_clear (void)
{
  GQueue kept;

  GHashTableIter it;
  gpointer value;

  g_mutex_lock (&lock);
  kept = lru;
  g_queue_init (&lru);
  /* sized again from what opens from now on */
  if (loads) {
    g_hash_table_iter_init (&it, loads);
    while (g_hash_table_iter_next (&it, NULL, &value))
      ((Load *) value)->peak = ((Load *) value)->open;
  }
  g_mutex_unlock (&lock);
  g_queue_clear_full (&kept, (GDestroyNotify) entry_free);
}

/**
 * gst_avhw_cache_set_decoders_limit:
 * @limit: how many opened decoders to keep per device; 0 keeps none;
 *   %GST_AVHW_DECODERS_CACHE_AUTO (the default) leaves it to the cache:
 *   %GST_AVHW_DECODERS_CACHE_DEFAULT_LIMIT, or as many as were open on
 *   the device at once when more were (since the last
 *   gst_avhw_cache_clear())
 */
void
gst_avhw_cache_set_decoders_limit (guint value)
{
  GList *evicted;

  g_mutex_lock (&lock);
  limit = value;
  evicted = trim_locked ();
  g_mutex_unlock (&lock);
  g_list_free_full (evicted, (GDestroyNotify) entry_free);
}

/**
 * gst_avhw_cache_get_decoders_limit:
 *
 * Returns: how many opened decoders the cache keeps per device, or
 *   %GST_AVHW_DECODERS_CACHE_AUTO when the cache sizes itself
 */
guint
gst_avhw_cache_get_decoders_limit (void)
{
  return limit;
}

/**
 * gst_avhw_cache_get_decoder_stats:
 * @n_cached: (out) (optional): decoders kept now, all devices
 * @n_hits: (out) (optional): gst_avhw_device_take_decoder() calls that got
 *   a kept decoder, since the process started
 * @n_misses: (out) (optional): those that did not (reuse off: not counted)
 */
void
gst_avhw_cache_get_decoder_stats (guint * n_cached, guint64 * n_hits,
    guint64 * n_misses)
{
  g_mutex_lock (&lock);
  if (n_cached)
    *n_cached = lru.length;
  if (n_hits)
    *n_hits = hits;
  if (n_misses)
    *n_misses = misses;
  g_mutex_unlock (&lock);
}
