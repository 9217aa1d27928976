/* gst-avhw: what a device decodes or encodes of a codec, in one struct
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include "gstavhwcodeccaps.h"

/**
 * SECTION:gstavhwcodeccaps
 * @title: Decoder and encoder capabilities
 * @short_description: what a device decodes or encodes of a codec
 *
 * A backend answers "what does device N decode of this codec?" once, in a
 * #GstAvhwDecoderCaps (#GstAvhwBackendClass.query_decoder), and the
 * encoder's question in a #GstAvhwEncoderCaps. The rules between the
 * fields are stated once, in gst_avhw_decoder_caps_check() and
 * gst_avhw_encoder_caps_check(): the library applies them to every
 * answer and the contract suite to every backend.
 */

#define KNOWN_DEPTHS (GST_AVHW_BIT_DEPTH (17) - 1)
#define KNOWN_CHROMA (GST_AVHW_CHROMA_400 | GST_AVHW_CHROMA_420 | \
    GST_AVHW_CHROMA_422 | GST_AVHW_CHROMA_444)
/* more than any device has: a larger count is a wrong answer */
#define MAX_COUNT 64

/**
 * gst_avhw_decoder_caps_init:
 * @caps: (out caller-allocates): the struct to fill
 *
 * What the library assumes of a device that does not say more: it decodes
 * the codec, field-coded streams included, with any number of frame
 * threads; nothing else is known.
 */
void
gst_avhw_decoder_caps_init (GstAvhwDecoderCaps * caps)
{
  g_return_if_fail (caps != NULL);
  memset (caps, 0, sizeof (*caps));
  caps->supported = TRUE;
  caps->field_coded = TRUE;
}

/**
 * gst_avhw_decoder_caps_clear:
 * @caps: a filled #GstAvhwDecoderCaps
 *
 * Frees the strings of @caps and sets every field to 0 (not supported,
 * nothing known).
 */
void
gst_avhw_decoder_caps_clear (GstAvhwDecoderCaps * caps)
{
  g_return_if_fail (caps != NULL);
  g_free (caps->reason);
  g_free (caps->field_coded_reason);
  g_free (caps->frame_threads_reason);
  g_free (caps->note);
  memset (caps, 0, sizeof (*caps));
}

static gboolean
fail (gchar ** why, const gchar * text)
{
  if (why)
    *why = g_strdup (text);
  return FALSE;
}

/* The rules both structs share: a no says why and a yes does not; known
 * depths and chroma only; a size is both or neither; counts a device can
 * have. */
static gboolean
check_common (gboolean supported, const gchar * reason, guint depths,
    guint chroma, guint max_width, guint max_height, guint engines,
    gchar ** why)
{
  if (!supported)
    return (reason && *reason) ? TRUE : fail (why, "a no without a reason");
  if (reason)
    return fail (why, "a yes with a reason");
  if (depths & ~KNOWN_DEPTHS)
    return fail (why, "bit depths outside 8 to 16");
  if (chroma & ~KNOWN_CHROMA)
    return fail (why, "chroma flags GstAvhwChroma does not name");
  if ((max_width == 0) != (max_height == 0))
    return fail (why, "a largest size with one side only");
  if (engines > MAX_COUNT)
    return fail (why, "more than 64 engines");
  return TRUE;
}

/**
 * gst_avhw_decoder_caps_check:
 * @caps: a backend's answer
 * @why: (out) (optional) (transfer full) (nullable): the rule it breaks
 *
 * The rules between the fields of an answer: a device that does not
 * decode the codec says why (and the other fields do not count: the
 * library clears them); one that does gives no reason, bit depths from 8
 * to 16, chroma flags of #GstAvhwChroma, a largest size with both sides
 * or neither, at most 64 slots and engines, a reason with every limit
 * (field-coded streams refused, frame threads limited) and none without.
 *
 * Returns: %TRUE when @caps keeps them
 */
gboolean
gst_avhw_decoder_caps_check (const GstAvhwDecoderCaps * caps, gchar ** why)
{
  g_return_val_if_fail (caps != NULL, FALSE);
  if (why)
    *why = NULL;
  if (!check_common (caps->supported, caps->reason, caps->bit_depths,
          caps->chroma, caps->max_width, caps->max_height, caps->engines, why))
    return FALSE;
  if (!caps->supported)
    return TRUE;
  if (caps->slots > MAX_COUNT)
    return fail (why, "more than 64 picture slots");
  if (caps->field_coded != !(caps->field_coded_reason
          && *caps->field_coded_reason))
    return fail (why, caps->field_coded ? "fields decoded, with a reason "
        "not to" : "fields refused without a reason");
  if ((caps->max_frame_threads != 0) != (caps->frame_threads_reason
          && *caps->frame_threads_reason))
    return fail (why, caps->max_frame_threads ? "a frame-thread limit "
        "without a reason" : "a reason for a frame-thread limit and no limit");
  return TRUE;
}

static void
append (GString * s, const gchar * sep, const gchar * text)
{
  if (s->len)
    g_string_append (s, sep);
  g_string_append (s, text);
}

/**
 * gst_avhw_decoder_caps_describe:
 * @caps: an answer that keeps gst_avhw_decoder_caps_check()'s rules
 *
 * What @caps says, for people (gst-avhw-info): "8-bit, 10-bit 4:2:0, up to
 * 8192x8192, 16 picture slots", and "fields in software" where field-coded
 * streams are refused.
 *
 * Returns: (transfer full) (nullable): the description, or %NULL when the
 *   device does not decode the codec or nothing beyond that is known
 */
gchar *
gst_avhw_decoder_caps_describe (const GstAvhwDecoderCaps * caps)
{
  static const struct
  {
    guint flag;
    const gchar *name;
  } chromas[] = {
    {GST_AVHW_CHROMA_400, "4:0:0"}, {GST_AVHW_CHROMA_420, "4:2:0"},
    {GST_AVHW_CHROMA_422, "4:2:2"}, {GST_AVHW_CHROMA_444, "4:4:4"},
  };
  GString *s, *c;
  guint d, i;

  g_return_val_if_fail (caps != NULL, NULL);
  if (!caps->supported)
    return NULL;
  s = g_string_new (NULL);
  for (d = 8; d <= 16; d++) {
    if (caps->bit_depths & GST_AVHW_BIT_DEPTH (d))
      g_string_append_printf (s, "%s%u-bit", s->len ? ", " : "", d);
  }
  c = g_string_new (NULL);
  for (i = 0; i < G_N_ELEMENTS (chromas); i++)
    if (caps->chroma & chromas[i].flag)
      append (c, ", ", chromas[i].name);
  if (c->len)
    append (s, " ", c->str);
  g_string_free (c, TRUE);
  if (caps->note)
    g_string_append_printf (s, "%s(%s)", s->len ? " " : "", caps->note);
  if (caps->max_width)
    g_string_append_printf (s, "%sup to %ux%u", s->len ? ", " : "",
        caps->max_width, caps->max_height);
  if (caps->slots)
    g_string_append_printf (s, "%s%u picture slots", s->len ? ", " : "",
        caps->slots);
  if (!caps->field_coded)
    append (s, ", ", "fields in software");
  if (!s->len) {
    g_string_free (s, TRUE);
    return NULL;
  }
  return g_string_free (s, FALSE);
}

/**
 * gst_avhw_encoder_caps_init:
 * @caps: (out caller-allocates): the struct to fill
 *
 * What the library assumes of a device that does not say: it is not known
 * to encode the codec (with no reason yet: the library gives one).
 */
void
gst_avhw_encoder_caps_init (GstAvhwEncoderCaps * caps)
{
  g_return_if_fail (caps != NULL);
  memset (caps, 0, sizeof (*caps));
}

/**
 * gst_avhw_encoder_caps_clear:
 * @caps: a filled #GstAvhwEncoderCaps
 *
 * Frees the strings of @caps and sets every field to 0.
 */
void
gst_avhw_encoder_caps_clear (GstAvhwEncoderCaps * caps)
{
  g_return_if_fail (caps != NULL);
  g_free (caps->reason);
  g_free (caps->note);
  memset (caps, 0, sizeof (*caps));
}

/**
 * gst_avhw_encoder_caps_check:
 * @caps: a backend's answer
 * @why: (out) (optional) (transfer full) (nullable): the rule it breaks
 *
 * The rules of gst_avhw_decoder_caps_check() that an encoder's answer
 * shares: a no says why, a yes does not; bit depths from 8 to 16, chroma
 * flags of #GstAvhwChroma, a largest size with both sides or neither, at
 * most 64 engines.
 *
 * Returns: %TRUE when @caps keeps them
 */
gboolean
gst_avhw_encoder_caps_check (const GstAvhwEncoderCaps * caps, gchar ** why)
{
  g_return_val_if_fail (caps != NULL, FALSE);
  if (why)
    *why = NULL;
  return check_common (caps->supported, caps->reason, caps->bit_depths,
      caps->chroma, caps->max_width, caps->max_height, caps->engines, why);
}
