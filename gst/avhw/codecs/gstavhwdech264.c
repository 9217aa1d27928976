/* gst-avhw: avhwdec, what an H.264 sequence parameter set decides before a
 * hardware decoder sees it
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * avhwdec opens FFmpeg's h264 decoder with strict compliance, so that a
 * stream without VUI reorder information keeps every B-frame: the decoder
 * then holds as many pictures for display order as the level allows
 * (up to 15) on top of its reference pictures. FFmpeg keeps those apart,
 * where the standard's DPB would count a picture that is both once, and a
 * hardware decoder with a fixed number of picture slots may not have that
 * many: FFmpeg 7.1's Vulkan hwaccel gives each picture the slot of its
 * index in the decoder's picture array, and on the H200 (17 slots)
 * MR2_TANDBERG_E (15 reference frames, level 3.1, QCIF: reorder depth 15)
 * failed its 25th submission. For such devices the SPS decides a depth
 * that fits: none where pictures are shown in decoding order, else what
 * the slots leave beside the references.
 *
 * Field-coded streams on a device that decodes field pictures wrongly are
 * watched slice by slice (gstavhwdecwatch.c): a stream whose interlaced
 * pictures are MBAFF frames stays on the device, and the first field
 * picture hands the stream to software (gstavhwdec.c).
 *
 * The SPS is read with GStreamer's codecparsers, by the stream's watcher
 * (gstavhwdecwatch.c).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstavhwdech264.h"

/* MaxDpbMbs by level_idc (H.264 Table A-1), as FFmpeg's h264_ps.c has it:
 * levels it does not list take the largest depth. */
static const guint level_max_dpb_mbs[][2] = {
  {10, 396}, {11, 900}, {12, 2376}, {13, 2376}, {20, 2376}, {21, 4752},
  {22, 8100}, {30, 8100}, {31, 18000}, {32, 20480}, {40, 32768},
  {41, 32768}, {42, 34816}, {50, 110400}, {51, 184320}, {52, 184320},
};

#define MAX_REORDER 15          /* FFmpeg's H264_MAX_DPB_FRAMES - 1 */

void
gst_avhw_dec_h264_seq_from_sps (const GstH264SPS * sps, GstAvhwDecH264Seq * seq)
{
  guint mbs = (sps->pic_width_in_mbs_minus1 + 1) *
      (sps->pic_height_in_map_units_minus1 + 1) *
      (sps->frame_mbs_only_flag ? 1 : 2);
  guint i;

  seq->refs = sps->num_ref_frames;
  seq->level_reorder = MAX_REORDER;
  for (i = 0; i < G_N_ELEMENTS (level_max_dpb_mbs); i++)
    if (level_max_dpb_mbs[i][0] == sps->level_idc && mbs > 0)
      seq->level_reorder = MIN (level_max_dpb_mbs[i][1] / mbs, MAX_REORDER);
  seq->restricted = sps->vui_parameters_present_flag
      && sps->vui_parameters.bitstream_restriction_flag;
  seq->reorder = seq->restricted ?
      sps->vui_parameters.num_reorder_frames : seq->level_reorder;
  seq->in_order = sps->pic_order_cnt_type == 2;
  seq->field_coded = !sps->frame_mbs_only_flag;
}

gint
gst_avhw_dec_h264_reorder_for (const GstAvhwDecH264Seq * seq, guint slots)
{
  /* the picture being decoded, and one leaving the references while it is
   * still to be shown */
  const guint busy = 2;

  if (slots == 0 || seq->restricted)
    return -1;
  if (seq->refs + seq->level_reorder + busy <= slots)
    return -1;
  if (seq->in_order || seq->refs + busy >= slots)
    return 0;
  return MIN (seq->level_reorder, slots - busy - seq->refs);
}
