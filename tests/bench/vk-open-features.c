/* gst-avhw benchmark: what each of FFmpeg's device extensions and
 * features costs NVIDIA's vkCreateDevice (issue 30, item 3)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The vulkan backend's device (one queue of family 0, two of the decode
 * family) is made with the extensions and the feature structs of a device
 * FFmpeg made (av_hwdevice_ctx_create()), then again with one extension
 * (and its feature struct) left out at a time, with each core feature
 * struct emptied, and with the extensions decoding alone uses. One
 * Markdown row and one RESULT line each: vkCreateDevice's ms.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include "vk-open.h"

/* The feature structs copied from FFmpeg's chain: their size, and the
 * extension each belongs to (NULL for core ones). */
static const struct
{
  VkStructureType type;
  gsize size;
  const char *ext;
} kinds[] = {
  {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES,
      sizeof (VkPhysicalDeviceVulkan11Features), NULL},
  {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
      sizeof (VkPhysicalDeviceVulkan12Features), NULL},
  {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
      sizeof (VkPhysicalDeviceVulkan13Features), NULL},
#ifdef VK_EXT_descriptor_buffer
  {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DESCRIPTOR_BUFFER_FEATURES_EXT,
        sizeof (VkPhysicalDeviceDescriptorBufferFeaturesEXT),
      "VK_EXT_descriptor_buffer"},
#endif
  {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT,
        sizeof (VkPhysicalDeviceShaderAtomicFloatFeaturesEXT),
      "VK_EXT_shader_atomic_float"},
#ifdef VK_KHR_cooperative_matrix
  {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR,
        sizeof (VkPhysicalDeviceCooperativeMatrixFeaturesKHR),
      "VK_KHR_cooperative_matrix"},
#endif
#ifdef VK_NV_optical_flow
  {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_OPTICAL_FLOW_FEATURES_NV,
      sizeof (VkPhysicalDeviceOpticalFlowFeaturesNV), "VK_NV_optical_flow"},
#endif
#ifdef VK_EXT_shader_object
  {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_OBJECT_FEATURES_EXT,
      sizeof (VkPhysicalDeviceShaderObjectFeaturesEXT), "VK_EXT_shader_object"},
#endif
#ifdef VK_KHR_video_maintenance1
  {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VIDEO_MAINTENANCE_1_FEATURES_KHR,
        sizeof (VkPhysicalDeviceVideoMaintenance1FeaturesKHR),
      "VK_KHR_video_maintenance1"},
#endif
};

/* @t's entry of kinds[], or -1 for a kind not copied */
static gint
kind_of (VkStructureType t)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (kinds); i++)
    if (kinds[i].type == t)
      return (gint) i;
  return -1;
}

/* the extension a feature struct belongs to, NULL for core ones */
static const char *
struct_extension (VkStructureType t)
{
  gint k = kind_of (t);

  return k < 0 ? NULL : kinds[k].ext;
}

#define MAX_STRUCTS 16

typedef struct
{
  VkPhysicalDeviceFeatures2 head;
  VkBaseOutStructure *s[MAX_STRUCTS];
  guint n;
} Chain;

/* @c: a copy of FFmpeg's feature chain @f (unknown kinds named, left out) */
static void
chain_copy (Chain * c, const VkPhysicalDeviceFeatures2 * f)
{
  const VkBaseOutStructure *p = f->pNext;

  memset (c, 0, sizeof (*c));
  c->head = *f;
  for (; p && c->n < MAX_STRUCTS; p = p->pNext) {
    gint k = kind_of (p->sType);

    if (k < 0) {
      printf ("| FFmpeg's feature struct of sType %d | not copied |\n",
          (int) p->sType);
      continue;
    }
    c->s[c->n++] = g_memdup2 (p, kinds[k].size);
  }
}

static void
chain_free (Chain * c)
{
  guint i;

  for (i = 0; i < c->n; i++)
    g_free (c->s[i]);
}

typedef gboolean (*SkipFunc) (VkStructureType t, gconstpointer data);

/* links @c's structs, leaving out those @skip says (NULL: none) */
static const void *
chain_link (Chain * c, SkipFunc skip, gconstpointer data)
{
  VkBaseOutStructure *prev = (VkBaseOutStructure *) & c->head;
  guint i;

  for (i = 0; i < c->n; i++) {
    if (skip && skip (c->s[i]->sType, data))
      continue;
    prev->pNext = c->s[i];
    prev = c->s[i];
  }
  prev->pNext = NULL;
  return &c->head;
}

static gboolean
skip_type (VkStructureType t, gconstpointer data)
{
  return t == (VkStructureType) GPOINTER_TO_INT (data);
}

static VkBaseOutStructure *
chain_find (Chain * c, VkStructureType t)
{
  guint i;

  for (i = 0; i < c->n; i++)
    if (c->s[i]->sType == t)
      return c->s[i];
  return NULL;
}

/* the row for the backend's layout with @exts (less @drop) and @features */
static void
timed_row (const char *what, VkPhysicalDevice phys, char **exts,
    const char *drop, const void *features)
{
  const char *kept[64];
  guint n = 0, i;

  for (i = 0; exts[i] && n < G_N_ELEMENTS (kept); i++)
    if (!drop || strcmp (exts[i], drop) != 0)
      kept[n++] = exts[i];
  vk_open_row (what, vk_open_time_device_full (phys, VK_OPEN_FIRST_AND_DECODE,
          kept, n, features));
  vk_open_row ("  vkDestroyDevice of it", vk_open_last_destroy_ms);
}

/* clears @s (@size bytes) after its header, but the VkBool32 at
 * @keep_offset (0: none) */
static void
empty_struct (VkBaseOutStructure * s, gsize size, gsize keep_offset)
{
  guint8 *b = (guint8 *) s;
  VkBool32 kept = 0;

  if (keep_offset)
    memcpy (&kept, b + keep_offset, sizeof (kept));
  memset (b + sizeof (VkBaseOutStructure), 0,
      size - sizeof (VkBaseOutStructure));
  if (keep_offset)
    memcpy (b + keep_offset, &kept, sizeof (kept));
}

static const char *const decode_exts[] = {
  "VK_KHR_video_queue", "VK_KHR_video_decode_queue",
  "VK_KHR_video_decode_h264", "VK_KHR_video_decode_h265",
  "VK_KHR_video_maintenance1", "VK_KHR_external_memory_fd",
  "VK_KHR_external_semaphore_fd", "VK_EXT_external_memory_host",
  "VK_EXT_physical_device_drm", "VK_EXT_image_drm_format_modifier",
  "VK_KHR_push_descriptor", NULL
};

static gboolean
is_decode_ext (const char *e)
{
  guint i;

  for (i = 0; decode_exts[i]; i++)
    if (!strcmp (decode_exts[i], e))
      return TRUE;
  return FALSE;
}

/* the struct of an extension decoding does not use */
static gboolean
skip_not_decoding (VkStructureType t, gconstpointer data)
{
  const char *e = struct_extension (t);

  return e && !is_decode_ext (e);
}

void
vk_open_feature_rows (VkPhysicalDevice phys, const AVVulkanDeviceContext * hw)
{
  Chain c;
  char **exts = g_new0 (char *, hw->nb_enabled_dev_extensions + 1);
  GPtrArray *dec = g_ptr_array_new ();
  guint i;
  gchar *what;

  for (i = 0; i < (guint) hw->nb_enabled_dev_extensions; i++)
    exts[i] = (char *) hw->enabled_dev_extensions[i];
  chain_copy (&c, &hw->device_features);
  printf ("\n#### The backend's queues (one of family 0, two decode) with "
      "FFmpeg's %d extensions and %u feature structs\n\n| step | ms |\n"
      "| --- | ---: |\n", hw->nb_enabled_dev_extensions, c.n);
  timed_row ("vkCreateDevice: all of FFmpeg's extensions and features", phys,
      exts, NULL, chain_link (&c, NULL, NULL));
  timed_row ("vkCreateDevice: the same again", phys, exts, NULL,
      chain_link (&c, NULL, NULL));
  for (i = 0; exts[i]; i++) {
    VkStructureType st = 0;
    guint k;

    for (k = 0; k < c.n; k++)
      if (g_strcmp0 (struct_extension (c.s[k]->sType), exts[i]) == 0)
        st = c.s[k]->sType;
    what = g_strdup_printf ("vkCreateDevice: without %s%s", exts[i],
        st ? " and its features" : "");
    timed_row (what, phys, exts, exts[i], chain_link (&c, skip_type,
            GINT_TO_POINTER (st)));
    g_free (what);
  }
  memset (&c.head.features, 0, sizeof (c.head.features));
  timed_row ("vkCreateDevice: without the 1.0 features", phys, exts, NULL,
      chain_link (&c, NULL, NULL));
  c.head = hw->device_features;
  timed_row ("vkCreateDevice: without the 1.1 features", phys, exts, NULL,
      chain_link (&c, skip_type,
          GINT_TO_POINTER
          (VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES)));
  {
    VkBaseOutStructure *s12 = chain_find (&c,
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
    VkBaseOutStructure *s13 = chain_find (&c,
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES);

    if (s12) {
      VkPhysicalDeviceVulkan12Features keep =
          *(VkPhysicalDeviceVulkan12Features *) s12;

      empty_struct (s12, sizeof (keep),
          G_STRUCT_OFFSET (VkPhysicalDeviceVulkan12Features,
              timelineSemaphore));
      timed_row ("vkCreateDevice: 1.2 features emptied but timeline "
          "semaphores", phys, exts, NULL, chain_link (&c, NULL, NULL));
      ((VkPhysicalDeviceVulkan12Features *) s12)->hostQueryReset =
          keep.hostQueryReset;
      ((VkPhysicalDeviceVulkan12Features *) s12)->bufferDeviceAddress =
          keep.bufferDeviceAddress;
      timed_row ("vkCreateDevice: the same with hostQueryReset and "
          "bufferDeviceAddress", phys, exts, NULL, chain_link (&c, NULL, NULL));
      *(VkPhysicalDeviceVulkan12Features *) s12 = keep;
    }
    if (s13) {
      VkPhysicalDeviceVulkan13Features keep =
          *(VkPhysicalDeviceVulkan13Features *) s13;

      empty_struct (s13, sizeof (keep),
          G_STRUCT_OFFSET (VkPhysicalDeviceVulkan13Features, synchronization2));
      timed_row ("vkCreateDevice: 1.3 features emptied but synchronization2",
          phys, exts, NULL, chain_link (&c, NULL, NULL));
      *(VkPhysicalDeviceVulkan13Features *) s13 = keep;
    }
  }
  /* decoding's extensions only, with FFmpeg's core features */
  for (i = 0; exts[i]; i++)
    if (is_decode_ext (exts[i]))
      g_ptr_array_add (dec, exts[i]);
  vk_open_row ("vkCreateDevice: decoding's extensions only (video, external "
      "memory, push descriptors), FFmpeg's core features",
      vk_open_time_device_full (phys, VK_OPEN_FIRST_AND_DECODE,
          (const char *const *) dec->pdata, dec->len,
          chain_link (&c, skip_not_decoding, NULL)));
  vk_open_row ("  vkDestroyDevice of it", vk_open_last_destroy_ms);
  timed_row ("vkCreateDevice: all of FFmpeg's extensions and features, "
      "once more (the order's drift)", phys, exts, NULL, chain_link (&c, NULL,
          NULL));
  g_ptr_array_unref (dec);
  chain_free (&c);
  g_free (exts);
}
