/* gst-avhw benchmark helper: vk-time's view of timeline semaphores and
 * queries, for a stalled process (VK_TIME_SYNC=1).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * vk-time.c tells this file of every queue submission, host signal,
 * timeline semaphore made or destroyed, and query reset or begun in a
 * command buffer. It keeps, per timeline semaphore, the highest value a
 * submission waits for and the highest one a submission (or the host)
 * signals; per query, whether the last command recorded for it was a reset
 * or a begin. On SIGUSR2 (vk_sync_dump(), called by vk-time after its
 * pending calls) it prints
 *
 *   VK-SEM sem=S counter=C waited=W signalled=G waits=N signals=M
 *
 * for every semaphore with a wait past its counter (the GPU waits on it;
 * "signalled" below "waited" means no submission signals the value waited
 * for: the wait can never end), and
 *
 *   VK-QUERY pool=P query=Q last=reset|begin
 *
 * for every query a pending vkGetQueryPoolResults asks for (a query reset
 * and never begun never becomes available: a wait for it never ends).
 * Diagnostics only: the tables are fixed-size and lossy under races.
 */
#include "vk-sync.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <vulkan/vulkan.h>

#define SEMS 16384
#define QUERIES 16384

typedef struct
{
  _Atomic uint64_t sem;         /* 0: free */
  _Atomic uintptr_t dev;
  _Atomic uint64_t waited, signalled;
  atomic_uint waits, signals;
} Sem;

typedef struct
{
  _Atomic uint64_t key;         /* pool ^ query * prime; 0: free */
  _Atomic uint64_t pool;
  atomic_uint query, last;      /* 1 reset, 2 begin */
} Query;

static Sem sems[SEMS];
static Query queries[QUERIES];
static atomic_int on = -1;

int
vk_sync_enabled (void)
{
  int v = atomic_load (&on);

  if (v < 0) {
    const char *e = getenv ("VK_TIME_SYNC");

    v = e && *e && strcmp (e, "0") != 0;
    atomic_store (&on, v);
  }
  return v;
}

static Sem *
sem_find (uint64_t sem, int add)
{
  unsigned i, h = (unsigned) ((sem * 0x9E3779B97F4A7C15ull) >> 50) % SEMS;

  for (i = 0; i < SEMS; i++, h = (h + 1) % SEMS) {
    uint64_t cur = atomic_load (&sems[h].sem);

    if (cur == sem)
      return &sems[h];
    if (cur == 0) {
      uint64_t none = 0;

      if (!add)
        return NULL;
      if (atomic_compare_exchange_strong (&sems[h].sem, &none, sem)
          || none == sem)
        return &sems[h];
    }
  }
  return NULL;
}

static void
raise_to (_Atomic uint64_t * v, uint64_t to)
{
  uint64_t cur = atomic_load (v);

  while (to > cur && !atomic_compare_exchange_weak (v, &cur, to));
}

static void
sem_wait_on (uint64_t sem, uint64_t value)
{
  Sem *s = sem_find (sem, 0);

  if (s) {
    raise_to (&s->waited, value);
    atomic_fetch_add (&s->waits, 1);
  }
}

static void
sem_signal (uint64_t sem, uint64_t value)
{
  Sem *s = sem_find (sem, 0);

  if (s) {
    raise_to (&s->signalled, value);
    atomic_fetch_add (&s->signals, 1);
  }
}

void
vk_sync_created (uintptr_t dev, const void *create_info, uint64_t sem)
{
  const VkSemaphoreCreateInfo *info = create_info;
  const VkBaseInStructure *p;

  for (p = info->pNext; p; p = p->pNext) {
    if (p->sType == VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO) {
      const VkSemaphoreTypeCreateInfo *t = (const void *) p;
      Sem *s;

      if (t->semaphoreType != VK_SEMAPHORE_TYPE_TIMELINE)
        return;
      s = sem_find (sem, 1);
      if (s) {
        atomic_store (&s->dev, dev);
        atomic_store (&s->waited, 0);
        atomic_store (&s->signalled, t->initialValue);
        atomic_store (&s->waits, 0);
        atomic_store (&s->signals, 0);
      }
      return;
    }
  }
}

void
vk_sync_destroyed (uint64_t sem)
{
  Sem *s = sem_find (sem, 0);

  /* left in the table (open addressing): no device, not dumped */
  if (s)
    atomic_store (&s->dev, 0);
}

void
vk_sync_submit2 (uint32_t n, const void *submits)
{
  const VkSubmitInfo2 *si = submits;
  uint32_t i, j;

  for (i = 0; i < n; i++) {
    for (j = 0; j < si[i].waitSemaphoreInfoCount; j++)
      sem_wait_on ((uint64_t) si[i].pWaitSemaphoreInfos[j].semaphore,
          si[i].pWaitSemaphoreInfos[j].value);
    for (j = 0; j < si[i].signalSemaphoreInfoCount; j++)
      sem_signal ((uint64_t) si[i].pSignalSemaphoreInfos[j].semaphore,
          si[i].pSignalSemaphoreInfos[j].value);
  }
}

void
vk_sync_submit (uint32_t n, const void *submits)
{
  const VkSubmitInfo *si = submits;
  uint32_t i, j;

  for (i = 0; i < n; i++) {
    const VkTimelineSemaphoreSubmitInfo *t = NULL;
    const VkBaseInStructure *p;

    for (p = si[i].pNext; p; p = p->pNext)
      if (p->sType == VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO)
        t = (const void *) p;
    if (!t)
      continue;
    for (j = 0; j < si[i].waitSemaphoreCount
        && j < t->waitSemaphoreValueCount; j++)
      sem_wait_on ((uint64_t) si[i].pWaitSemaphores[j],
          t->pWaitSemaphoreValues[j]);
    for (j = 0; j < si[i].signalSemaphoreCount
        && j < t->signalSemaphoreValueCount; j++)
      sem_signal ((uint64_t) si[i].pSignalSemaphores[j],
          t->pSignalSemaphoreValues[j]);
  }
}

void
vk_sync_host_signal (const void *signal_info)
{
  const VkSemaphoreSignalInfo *info = signal_info;

  sem_signal ((uint64_t) info->semaphore, info->value);
}

static Query *
query_find (uint64_t pool, uint32_t q, int add)
{
  uint64_t key = (pool ^ ((uint64_t) q * 0x100000001B3ull)) | 1;
  unsigned i, h = (unsigned) ((key * 0x9E3779B97F4A7C15ull) >> 50) % QUERIES;

  for (i = 0; i < QUERIES; i++, h = (h + 1) % QUERIES) {
    uint64_t cur = atomic_load (&queries[h].key);

    if (cur == key && atomic_load (&queries[h].pool) == pool
        && atomic_load (&queries[h].query) == q)
      return &queries[h];
    if (cur == 0) {
      uint64_t none = 0;

      if (!add)
        return NULL;
      if (atomic_compare_exchange_strong (&queries[h].key, &none, key)) {
        atomic_store (&queries[h].pool, pool);
        atomic_store (&queries[h].query, q);
        return &queries[h];
      }
    }
  }
  return NULL;
}

void
vk_sync_query (uint64_t pool, uint32_t first, uint32_t count, int begin)
{
  uint32_t q;

  for (q = first; q < first + count; q++) {
    Query *e = query_find (pool, q, 1);

    if (e)
      atomic_store (&e->last, begin ? 2 : 1);
  }
}

static void
say (const char *line, int n)
{
  if (n > 0 && write (2, line, (size_t) n) < 0)
    return;
}

void
vk_sync_dump_queries (uint64_t pool, uint32_t first, uint32_t count)
{
  char line[160];
  uint32_t q;

  for (q = first; q < first + count; q++) {
    Query *e = query_find (pool, q, 0);
    unsigned last = e ? atomic_load (&e->last) : 0;

    say (line, snprintf (line, sizeof (line), "VK-QUERY pool=%#llx query=%u "
            "last=%s\n", (unsigned long long) pool, q, last == 1 ? "reset" :
            last == 2 ? "begin" : "unknown"));
  }
}

void
vk_sync_dump (VkSyncCounterFn counter)
{
  char line[200];
  int i, shown = 0;

  for (i = 0; i < SEMS; i++) {
    uint64_t sem = atomic_load (&sems[i].sem);
    uintptr_t dev = atomic_load (&sems[i].dev);
    uint64_t now = 0, waited, signalled;

    if (!sem || !dev || !counter)
      continue;
    if (counter (dev, sem, &now) != 0)
      continue;
    waited = atomic_load (&sems[i].waited);
    signalled = atomic_load (&sems[i].signalled);
    if (waited <= now && signalled <= now)
      continue;
    shown++;
    say (line, snprintf (line, sizeof (line), "VK-SEM sem=%#llx counter=%llu "
            "waited=%llu signalled=%llu waits=%u signals=%u%s\n",
            (unsigned long long) sem, (unsigned long long) now,
            (unsigned long long) waited, (unsigned long long) signalled,
            atomic_load (&sems[i].waits), atomic_load (&sems[i].signals),
            waited > signalled ? " NEVER-SIGNALLED" : ""));
  }
  say (line, snprintf (line, sizeof (line), "VK-SEM end (%d behind)\n", shown));
}
