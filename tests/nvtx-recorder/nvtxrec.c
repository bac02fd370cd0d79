/* gpuprof NVTX recorder: the NVTX tool side.
 *
 * NVTX dlopens this library from NVTX_INJECTION64_PATH and calls
 * InitializeInjectionNvtx2() once for every shared object that uses NVTX
 * (each has its own function table). We fill the CORE and CORE2 slots of
 * that table with recording functions; slots left empty become no-ops.
 *
 * All state sits behind one mutex: a test recorder favours exact, ordered
 * output over speed (about 70 ns per call, see CUPTI-NVTX.md).
 */

#define _GNU_SOURCE
#define NVTX_NO_IMPL            /* we are the tool, not a user of NVTX */
#include <nvtx3/nvToolsExt.h>

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "nvtxrec-private.h"

/* NVTX leaves these structs to the tool: handles point at ours. */
struct nvtxStringRegistration_st
{
  const char *text;             /* interned */
  struct nvtxStringRegistration_st *next;
};

/* Open pushes of one thread in one domain, to answer pop's return value
 * and to name what a POP closed. */
typedef struct
{
  uint32_t tid;
  size_t depth, cap;
  const char **msgs;
} ThreadStack;

struct nvtxDomainRegistration_st
{
  const char *name;             /* interned; "" for the default domain */
  struct nvtxStringRegistration_st *strings;
  ThreadStack *stacks;
  size_t n_stacks, cap_stacks;
  struct nvtxDomainRegistration_st *next;
};

/* Everything below is guarded by rec_lock. Domains, registered strings and
 * interned strings are never freed: the application keeps their handles
 * and tests keep the event strings. */
static pthread_mutex_t rec_lock = PTHREAD_MUTEX_INITIALIZER;
static NvtxrecEvent *events;
static size_t n_events, cap_events;
static const char **intern_slots;       /* open addressing, power of 2 */
static size_t n_interned, cap_interned;
static struct nvtxDomainRegistration_st default_domain = { "" };
static struct nvtxDomainRegistration_st *domains;

static uint64_t next_range_id = 1;      /* atomic: ranges may end anywhere */
static int attached;                    /* atomic */
static pthread_once_t setup_once = PTHREAD_ONCE_INIT;
static __thread uint32_t cached_tid;

/* A recorder that drops events would make tests lie: give up instead. */
static void
oom (void)
{
  fputs ("nvtxrec: out of memory\n", stderr);
  abort ();
}

static void *
xrealloc (void *p, size_t size)
{
  p = realloc (p, size);
  if (!p)
    oom ();
  return p;
}

char *
nvtxrec_strdup_printf (const char *fmt, ...)
{
  va_list args;
  char *s;

  va_start (args, fmt);
  if (vasprintf (&s, fmt, args) < 0)
    oom ();
  va_end (args);
  return s;
}

/* ---- string interning (lock held) ---- */

static size_t
hash_string (const char *s)
{
  size_t h = 14695981039346656037ULL;   /* FNV-1a */

  for (; *s; s++)
    h = (h ^ (unsigned char) *s) * 1099511628211ULL;
  return h;
}

static void
intern_grow_locked (void)
{
  const char **old = intern_slots;
  size_t old_cap = cap_interned, i;

  cap_interned = old_cap ? old_cap * 2 : 256;
  intern_slots = calloc (cap_interned, sizeof (*intern_slots));
  if (!intern_slots)
    oom ();
  for (i = 0; i < old_cap; i++) {
    size_t j;

    if (!old[i])
      continue;
    j = hash_string (old[i]) & (cap_interned - 1);
    while (intern_slots[j])
      j = (j + 1) & (cap_interned - 1);
    intern_slots[j] = old[i];
  }
  free (old);
}

static const char *
intern_locked (const char *s)
{
  size_t j;
  char *copy;

  if (!s)
    return NULL;
  if (2 * (n_interned + 1) > cap_interned)
    intern_grow_locked ();
  j = hash_string (s) & (cap_interned - 1);
  for (; intern_slots[j]; j = (j + 1) & (cap_interned - 1))
    if (strcmp (intern_slots[j], s) == 0)
      return intern_slots[j];
  copy = strdup (s);
  if (!copy)
    oom ();
  intern_slots[j] = copy;
  n_interned++;
  return copy;
}

const char *
nvtxrec_intern (const char *s)
{
  const char *ret;

  pthread_mutex_lock (&rec_lock);
  ret = intern_locked (s);
  pthread_mutex_unlock (&rec_lock);
  return ret;
}

/* wchar_t is UTF-32 on Linux; store everything as UTF-8. */
static char *
wide_to_utf8 (const wchar_t * w)
{
  size_t len = 0, i;
  char *out, *p;

  if (!w)
    return NULL;
  while (w[len])
    len++;
  p = out = xrealloc (NULL, 4 * len + 1);
  for (i = 0; i < len; i++) {
    uint32_t c = (uint32_t) w[i];

    if (c < 0x80) {
      *p++ = c;
    } else if (c < 0x800) {
      *p++ = 0xc0 | (c >> 6);
      *p++ = 0x80 | (c & 0x3f);
    } else if (c < 0x10000) {
      *p++ = 0xe0 | (c >> 12);
      *p++ = 0x80 | ((c >> 6) & 0x3f);
      *p++ = 0x80 | (c & 0x3f);
    } else if (c < 0x110000) {
      *p++ = 0xf0 | (c >> 18);
      *p++ = 0x80 | ((c >> 12) & 0x3f);
      *p++ = 0x80 | ((c >> 6) & 0x3f);
      *p++ = 0x80 | (c & 0x3f);
    } else {
      *p++ = '?';
    }
  }
  *p = '\0';
  return out;
}

static const char *
intern_wide_locked (const wchar_t * w)
{
  char *utf8 = wide_to_utf8 (w);
  const char *ret = intern_locked (utf8);

  free (utf8);
  return ret;
}

/* ---- event store ---- */

static void
append_locked (const NvtxrecEvent * ev)
{
  if (n_events == cap_events) {
    cap_events = cap_events ? cap_events * 2 : 4096;
    events = xrealloc (events, cap_events * sizeof (*events));
  }
  events[n_events++] = *ev;
}

void
nvtxrec_append (const NvtxrecEvent * ev)
{
  pthread_mutex_lock (&rec_lock);
  append_locked (ev);
  pthread_mutex_unlock (&rec_lock);
}

NvtxrecEvent *
nvtxrec_snapshot (size_t * n)
{
  NvtxrecEvent *copy;

  pthread_mutex_lock (&rec_lock);
  copy = xrealloc (NULL, (n_events ? n_events : 1) * sizeof (*copy));
  memcpy (copy, events, n_events * sizeof (*copy));
  *n = n_events;
  pthread_mutex_unlock (&rec_lock);
  return copy;
}

static uint32_t
current_tid (void)
{
  if (!cached_tid)
    cached_tid = (uint32_t) syscall (SYS_gettid);
  return cached_tid;
}

/* Time and thread are taken before the lock so waiting does not skew ts. */
static void
event_init (NvtxrecEvent * ev, NvtxrecKind kind)
{
  struct timespec now;

  memset (ev, 0, sizeof (*ev));
  clock_gettime (CLOCK_MONOTONIC, &now);
  ev->kind = kind;
  ev->tid = current_tid ();
  ev->ts = (uint64_t) now.tv_sec * 1000000000ULL + now.tv_nsec;
}

static struct nvtxDomainRegistration_st *
domain_or_default (nvtxDomainHandle_t domain)
{
  return domain ? domain : &default_domain;
}

static void
take_payload (NvtxrecEvent * ev, const nvtxEventAttributes_t * attr)
{
  ev->payload_type = (NvtxrecPayloadType) attr->payloadType;
  switch (attr->payloadType) {
    case NVTX_PAYLOAD_TYPE_UNSIGNED_INT64:
      ev->payload.u64 = attr->payload.ullValue;
      break;
    case NVTX_PAYLOAD_TYPE_INT64:
      ev->payload.i64 = attr->payload.llValue;
      break;
    case NVTX_PAYLOAD_TYPE_DOUBLE:
      ev->payload.d = attr->payload.dValue;
      break;
    case NVTX_PAYLOAD_TYPE_UNSIGNED_INT32:
      ev->payload.u64 = attr->payload.uiValue;
      break;
    case NVTX_PAYLOAD_TYPE_INT32:
      ev->payload.i64 = attr->payload.iValue;
      break;
    case NVTX_PAYLOAD_TYPE_FLOAT:
      ev->payload.d = attr->payload.fValue;
      break;
    default:
      ev->payload_type = NVTXREC_PAYLOAD_NONE;
      break;
  }
}

static const char *
attr_message_locked (const nvtxEventAttributes_t * attr)
{
  switch (attr->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
      return intern_locked (attr->message.ascii);
    case NVTX_MESSAGE_TYPE_UNICODE:
      return intern_wide_locked (attr->message.unicode);
    case NVTX_MESSAGE_TYPE_REGISTERED:
      return attr->message.registered ? attr->message.registered->text : NULL;
    default:
      return NULL;
  }
}

static void
take_attributes_locked (NvtxrecEvent * ev, const nvtxEventAttributes_t * attr)
{
  if (!attr)
    return;
  ev->category = attr->category;
  if (attr->colorType == NVTX_COLOR_ARGB) {
    ev->has_color = 1;
    ev->color = attr->color;
  }
  take_payload (ev, attr);
  ev->message = attr_message_locked (attr);
}

/* One of @attr, @ascii, @wide gives the message of a mark/push/start. */
typedef struct
{
  const nvtxEventAttributes_t *attr;
  const char *ascii;
  const wchar_t *wide;
} Message;

static void
take_message_locked (NvtxrecEvent * ev, const Message * m)
{
  if (m->attr)
    take_attributes_locked (ev, m->attr);
  else if (m->wide)
    ev->message = intern_wide_locked (m->wide);
  else
    ev->message = intern_locked (m->ascii);
}

static ThreadStack *
thread_stack_locked (struct nvtxDomainRegistration_st *d, uint32_t tid)
{
  size_t i;
  ThreadStack *st;

  for (i = 0; i < d->n_stacks; i++)
    if (d->stacks[i].tid == tid)
      return &d->stacks[i];
  if (d->n_stacks == d->cap_stacks) {
    d->cap_stacks = d->cap_stacks ? 2 * d->cap_stacks : 4;
    d->stacks = xrealloc (d->stacks, d->cap_stacks * sizeof (*d->stacks));
  }
  st = &d->stacks[d->n_stacks++];
  memset (st, 0, sizeof (*st));
  st->tid = tid;
  return st;
}

/* ---- recording functions, shared by the CORE and CORE2 slots ---- */

static void
record_mark (nvtxDomainHandle_t domain, Message m)
{
  NvtxrecEvent ev;

  event_init (&ev, NVTXREC_MARK);
  pthread_mutex_lock (&rec_lock);
  ev.domain = domain_or_default (domain)->name;
  take_message_locked (&ev, &m);
  append_locked (&ev);
  pthread_mutex_unlock (&rec_lock);
}

/* the test's push function and its data, swapped together */
typedef struct _PushFunc
{
  NvtxrecPushFunc func;
  void *data;
  struct _PushFunc *next;
} PushFunc;
static PushFunc *push_func;     /* atomic */
/* every one set (a few, in tests): a pushing thread may still read an old
 * one, so none is freed */
static PushFunc *push_funcs;

void
nvtxrec_set_push_func (NvtxrecPushFunc func, void *user_data)
{
  PushFunc *f = NULL;

  if (func) {
    f = xrealloc (NULL, sizeof (*f));
    f->func = func;
    f->data = user_data;
    pthread_mutex_lock (&rec_lock);
    f->next = push_funcs;
    push_funcs = f;
    pthread_mutex_unlock (&rec_lock);
  }
  __atomic_store_n (&push_func, f, __ATOMIC_RELEASE);
}

static int
record_push (nvtxDomainHandle_t domain, Message m)
{
  struct nvtxDomainRegistration_st *d = domain_or_default (domain);
  NvtxrecEvent ev;
  ThreadStack *st;
  PushFunc *f;

  event_init (&ev, NVTXREC_PUSH);
  pthread_mutex_lock (&rec_lock);
  ev.domain = d->name;
  take_message_locked (&ev, &m);
  st = thread_stack_locked (d, ev.tid);
  if (st->depth == st->cap) {
    st->cap = st->cap ? 2 * st->cap : 16;
    st->msgs = xrealloc (st->msgs, st->cap * sizeof (*st->msgs));
  }
  st->msgs[st->depth] = ev.message;
  ev.depth = (int) st->depth++;
  append_locked (&ev);
  pthread_mutex_unlock (&rec_lock);
  f = __atomic_load_n (&push_func, __ATOMIC_ACQUIRE);
  if (f)
    f->func (ev.message, f->data);
  return ev.depth;
}

static int
record_pop (nvtxDomainHandle_t domain)
{
  struct nvtxDomainRegistration_st *d = domain_or_default (domain);
  NvtxrecEvent ev;
  ThreadStack *st;

  event_init (&ev, NVTXREC_POP);
  pthread_mutex_lock (&rec_lock);
  ev.domain = d->name;
  st = thread_stack_locked (d, ev.tid);
  if (st->depth == 0) {
    ev.depth = -1;              /* NVTX: negative = nothing to pop */
  } else {
    ev.depth = (int) --st->depth;
    ev.message = st->msgs[st->depth];
  }
  append_locked (&ev);
  pthread_mutex_unlock (&rec_lock);
  return ev.depth;
}

static nvtxRangeId_t
record_start (nvtxDomainHandle_t domain, Message m)
{
  NvtxrecEvent ev;

  event_init (&ev, NVTXREC_START);
  ev.range_id = __atomic_fetch_add (&next_range_id, 1, __ATOMIC_RELAXED);
  pthread_mutex_lock (&rec_lock);
  ev.domain = domain_or_default (domain)->name;
  take_message_locked (&ev, &m);
  append_locked (&ev);
  pthread_mutex_unlock (&rec_lock);
  return ev.range_id;
}

static void
record_end (nvtxDomainHandle_t domain, nvtxRangeId_t id)
{
  NvtxrecEvent ev;

  event_init (&ev, NVTXREC_END);
  ev.range_id = id;
  pthread_mutex_lock (&rec_lock);
  ev.domain = domain_or_default (domain)->name;
  append_locked (&ev);
  pthread_mutex_unlock (&rec_lock);
}

/* NAME_CATEGORY and NAME_THREAD: a number and a name. */
static void
record_name (NvtxrecKind kind, nvtxDomainHandle_t domain, uint32_t number,
    const char *ascii, const wchar_t * wide)
{
  NvtxrecEvent ev;

  event_init (&ev, kind);
  pthread_mutex_lock (&rec_lock);
  ev.domain = domain_or_default (domain)->name;
  if (kind == NVTXREC_NAME_THREAD)
    ev.target_tid = number;
  else
    ev.category = number;
  ev.message = wide ? intern_wide_locked (wide) : intern_locked (ascii);
  append_locked (&ev);
  pthread_mutex_unlock (&rec_lock);
}

/* Every shared object creates its own handles: merge them by name. */
static nvtxDomainHandle_t
record_domain_create (const char *ascii, const wchar_t * wide)
{
  struct nvtxDomainRegistration_st *d;
  NvtxrecEvent ev;
  const char *name;

  event_init (&ev, NVTXREC_DOMAIN_CREATE);
  pthread_mutex_lock (&rec_lock);
  name = wide ? intern_wide_locked (wide) : intern_locked (ascii);
  if (!name)
    name = default_domain.name;
  for (d = domains; d; d = d->next)
    if (d->name == name)
      break;
  if (!d && name == default_domain.name)
    d = &default_domain;
  if (!d) {
    d = xrealloc (NULL, sizeof (*d));
    memset (d, 0, sizeof (*d));
    d->name = name;
    d->next = domains;
    domains = d;
  }
  ev.domain = name;
  append_locked (&ev);
  pthread_mutex_unlock (&rec_lock);
  return d;
}

static nvtxStringHandle_t
record_register_string (nvtxDomainHandle_t domain, const char *ascii,
    const wchar_t * wide)
{
  struct nvtxDomainRegistration_st *d = domain_or_default (domain);
  struct nvtxStringRegistration_st *s;
  NvtxrecEvent ev;
  const char *text;

  event_init (&ev, NVTXREC_REGISTER_STRING);
  pthread_mutex_lock (&rec_lock);
  text = wide ? intern_wide_locked (wide) : intern_locked (ascii);
  for (s = d->strings; s; s = s->next)
    if (s->text == text)
      break;
  if (!s) {
    s = xrealloc (NULL, sizeof (*s));
    s->text = text;
    s->next = d->strings;
    d->strings = s;
  }
  ev.domain = d->name;
  ev.message = text;
  append_locked (&ev);
  pthread_mutex_unlock (&rec_lock);
  return s;
}

/* ---- CORE slots (default domain) ---- */

static void NVTX_API
core_mark_ex (const nvtxEventAttributes_t * attr)
{
  record_mark (NULL, (Message) { .attr = attr });
}

static void NVTX_API
core_mark_a (const char *msg)
{
  record_mark (NULL, (Message) { .ascii = msg });
}

static void NVTX_API
core_mark_w (const wchar_t * msg)
{
  record_mark (NULL, (Message) { .wide = msg });
}

static nvtxRangeId_t NVTX_API
core_range_start_ex (const nvtxEventAttributes_t * attr)
{
  return record_start (NULL, (Message) { .attr = attr });
}

static nvtxRangeId_t NVTX_API
core_range_start_a (const char *msg)
{
  return record_start (NULL, (Message) { .ascii = msg });
}

static nvtxRangeId_t NVTX_API
core_range_start_w (const wchar_t * msg)
{
  return record_start (NULL, (Message) { .wide = msg });
}

static void NVTX_API
core_range_end (nvtxRangeId_t id)
{
  record_end (NULL, id);
}

static int NVTX_API
core_range_push_ex (const nvtxEventAttributes_t * attr)
{
  return record_push (NULL, (Message) { .attr = attr });
}

static int NVTX_API
core_range_push_a (const char *msg)
{
  return record_push (NULL, (Message) { .ascii = msg });
}

static int NVTX_API
core_range_push_w (const wchar_t * msg)
{
  return record_push (NULL, (Message) { .wide = msg });
}

static int NVTX_API
core_range_pop (void)
{
  return record_pop (NULL);
}

static void NVTX_API
core_name_category_a (uint32_t category, const char *name)
{
  record_name (NVTXREC_NAME_CATEGORY, NULL, category, name, NULL);
}

static void NVTX_API
core_name_category_w (uint32_t category, const wchar_t * name)
{
  record_name (NVTXREC_NAME_CATEGORY, NULL, category, NULL, name);
}

static void NVTX_API
core_name_os_thread_a (uint32_t tid, const char *name)
{
  record_name (NVTXREC_NAME_THREAD, NULL, tid, name, NULL);
}

static void NVTX_API
core_name_os_thread_w (uint32_t tid, const wchar_t * name)
{
  record_name (NVTXREC_NAME_THREAD, NULL, tid, NULL, name);
}

/* ---- CORE2 slots (domains) ---- */

static void NVTX_API
domain_mark_ex (nvtxDomainHandle_t domain, const nvtxEventAttributes_t * attr)
{
  record_mark (domain, (Message) { .attr = attr });
}

static nvtxRangeId_t NVTX_API
domain_range_start_ex (nvtxDomainHandle_t domain,
    const nvtxEventAttributes_t * attr)
{
  return record_start (domain, (Message) { .attr = attr });
}

static void NVTX_API
domain_range_end (nvtxDomainHandle_t domain, nvtxRangeId_t id)
{
  record_end (domain, id);
}

static int NVTX_API
domain_range_push_ex (nvtxDomainHandle_t domain,
    const nvtxEventAttributes_t * attr)
{
  return record_push (domain, (Message) { .attr = attr });
}

static int NVTX_API
domain_range_pop (nvtxDomainHandle_t domain)
{
  return record_pop (domain);
}

static void NVTX_API
domain_name_category_a (nvtxDomainHandle_t domain, uint32_t category,
    const char *name)
{
  record_name (NVTXREC_NAME_CATEGORY, domain, category, name, NULL);
}

static void NVTX_API
domain_name_category_w (nvtxDomainHandle_t domain, uint32_t category,
    const wchar_t * name)
{
  record_name (NVTXREC_NAME_CATEGORY, domain, category, NULL, name);
}

static nvtxStringHandle_t NVTX_API
domain_register_string_a (nvtxDomainHandle_t domain, const char *s)
{
  return record_register_string (domain, s, NULL);
}

static nvtxStringHandle_t NVTX_API
domain_register_string_w (nvtxDomainHandle_t domain, const wchar_t * s)
{
  return record_register_string (domain, NULL, s);
}

static nvtxDomainHandle_t NVTX_API
domain_create_a (const char *name)
{
  return record_domain_create (name, NULL);
}

static nvtxDomainHandle_t NVTX_API
domain_create_w (const wchar_t * name)
{
  return record_domain_create (NULL, name);
}

static void NVTX_API
domain_destroy (nvtxDomainHandle_t domain)
{
  NvtxrecEvent ev;

  /* Keep the struct: other shared objects may hold the merged handle. */
  event_init (&ev, NVTXREC_DOMAIN_DESTROY);
  pthread_mutex_lock (&rec_lock);
  ev.domain = domain_or_default (domain)->name;
  append_locked (&ev);
  pthread_mutex_unlock (&rec_lock);
}

/* ---- injection entry point ---- */

typedef struct
{
  unsigned slot;                /* NVTX_CBID_<module>_* */
  NvtxFunctionPointer fn;
} Slot;

#define SLOT(id, fn) { id, (NvtxFunctionPointer) fn }

static const Slot core_slots[] = {
  SLOT (NVTX_CBID_CORE_MarkEx, core_mark_ex),
  SLOT (NVTX_CBID_CORE_MarkA, core_mark_a),
  SLOT (NVTX_CBID_CORE_MarkW, core_mark_w),
  SLOT (NVTX_CBID_CORE_RangeStartEx, core_range_start_ex),
  SLOT (NVTX_CBID_CORE_RangeStartA, core_range_start_a),
  SLOT (NVTX_CBID_CORE_RangeStartW, core_range_start_w),
  SLOT (NVTX_CBID_CORE_RangeEnd, core_range_end),
  SLOT (NVTX_CBID_CORE_RangePushEx, core_range_push_ex),
  SLOT (NVTX_CBID_CORE_RangePushA, core_range_push_a),
  SLOT (NVTX_CBID_CORE_RangePushW, core_range_push_w),
  SLOT (NVTX_CBID_CORE_RangePop, core_range_pop),
  SLOT (NVTX_CBID_CORE_NameCategoryA, core_name_category_a),
  SLOT (NVTX_CBID_CORE_NameCategoryW, core_name_category_w),
  SLOT (NVTX_CBID_CORE_NameOsThreadA, core_name_os_thread_a),
  SLOT (NVTX_CBID_CORE_NameOsThreadW, core_name_os_thread_w),
};

static const Slot core2_slots[] = {
  SLOT (NVTX_CBID_CORE2_DomainMarkEx, domain_mark_ex),
  SLOT (NVTX_CBID_CORE2_DomainRangeStartEx, domain_range_start_ex),
  SLOT (NVTX_CBID_CORE2_DomainRangeEnd, domain_range_end),
  SLOT (NVTX_CBID_CORE2_DomainRangePushEx, domain_range_push_ex),
  SLOT (NVTX_CBID_CORE2_DomainRangePop, domain_range_pop),
  SLOT (NVTX_CBID_CORE2_DomainNameCategoryA, domain_name_category_a),
  SLOT (NVTX_CBID_CORE2_DomainNameCategoryW, domain_name_category_w),
  SLOT (NVTX_CBID_CORE2_DomainRegisterStringA, domain_register_string_a),
  SLOT (NVTX_CBID_CORE2_DomainRegisterStringW, domain_register_string_w),
  SLOT (NVTX_CBID_CORE2_DomainCreateA, domain_create_a),
  SLOT (NVTX_CBID_CORE2_DomainCreateW, domain_create_w),
  SLOT (NVTX_CBID_CORE2_DomainDestroy, domain_destroy),
};

static int
fill_module (const NvtxExportTableCallbacks * etbl, NvtxCallbackModule module,
    const Slot * slots, size_t n_slots)
{
  NvtxFunctionTable table = NULL;
  unsigned int size = 0;
  size_t i;

  if (!etbl->GetModuleFunctionTable (module, &table, &size) || !table)
    return 0;
  for (i = 0; i < n_slots; i++)
    if (slots[i].slot < size && table[slots[i].slot])
      *table[slots[i].slot] = slots[i].fn;
  return 1;
}

/* A forked child has one thread, which may not be the one its cached tid
 * belongs to, and must not inherit a held lock. */
static void
atfork_prepare (void)
{
  pthread_mutex_lock (&rec_lock);
}

static void
atfork_parent (void)
{
  pthread_mutex_unlock (&rec_lock);
}

static void
atfork_child (void)
{
  cached_tid = 0;
  pthread_mutex_unlock (&rec_lock);
}

static void
setup (void)
{
  pthread_atfork (atfork_prepare, atfork_parent, atfork_child);
}

NVTXREC_API int NVTX_API
InitializeInjectionNvtx2 (NvtxGetExportTableFunc_t get_export_table)
{
  const NvtxExportTableCallbacks *etbl;

  etbl = get_export_table (NVTX_ETID_CALLBACKS);
  if (!etbl || etbl->struct_size < sizeof (NvtxExportTableCallbacks))
    return 0;

  pthread_once (&setup_once, setup);
  /* Runs again for every shared object using NVTX: each call fills that
   * object's own table, so nothing here is done only once. */
  if (!fill_module (etbl, NVTX_CB_MODULE_CORE, core_slots,
          sizeof (core_slots) / sizeof (core_slots[0])) ||
      !fill_module (etbl, NVTX_CB_MODULE_CORE2, core2_slots,
          sizeof (core2_slots) / sizeof (core2_slots[0])))
    return 0;
  __atomic_store_n (&attached, 1, __ATOMIC_RELEASE);
  return 1;
}

/* NVTXREC_OUT may hold %p, replaced by the process id, so that forked or
 * spawned processes (gst-plugin-scanner) do not overwrite each other. */
static char *
expand_out_path (const char *tmpl)
{
  const char *p = strstr (tmpl, "%p");

  if (!p)
    return nvtxrec_strdup_printf ("%s", tmpl);
  return nvtxrec_strdup_printf ("%.*s%ld%s", (int) (p - tmpl), tmpl,
      (long) getpid (), p + 2);
}

__attribute__ ((destructor))
static void
write_at_exit (void)
{
  const char *out = getenv ("NVTXREC_OUT");
  char *path;

  /* Only as NVTX's tool, and not for processes that recorded nothing. */
  if (!nvtxrec_is_attached () || !out || !*out || nvtxrec_n_events () == 0)
    return;
  path = expand_out_path (out);
  if (!nvtxrec_write_jsonl (path))
    fprintf (stderr, "nvtxrec: cannot write %s: %m\n", path);
  free (path);
}

/* ---- public API: access ---- */

int
nvtxrec_is_attached (void)
{
  return __atomic_load_n (&attached, __ATOMIC_ACQUIRE);
}

static void
clear_stacks_locked (struct nvtxDomainRegistration_st *d)
{
  size_t i;

  for (i = 0; i < d->n_stacks; i++)
    d->stacks[i].depth = 0;
}

void
nvtxrec_reset (void)
{
  struct nvtxDomainRegistration_st *d;

  pthread_mutex_lock (&rec_lock);
  n_events = 0;
  clear_stacks_locked (&default_domain);
  for (d = domains; d; d = d->next)
    clear_stacks_locked (d);
  pthread_mutex_unlock (&rec_lock);
}

size_t
nvtxrec_n_events (void)
{
  size_t n;

  pthread_mutex_lock (&rec_lock);
  n = n_events;
  pthread_mutex_unlock (&rec_lock);
  return n;
}

int
nvtxrec_get_event (size_t i, NvtxrecEvent * out)
{
  int ok;

  pthread_mutex_lock (&rec_lock);
  ok = i < n_events;
  if (ok)
    *out = events[i];
  pthread_mutex_unlock (&rec_lock);
  return ok;
}
