/* Preloaded by tests/sanitizer-run.sh in the TSan folder (tools/run-tsan.sh),
 * after libtsan, into every process that loads our code. GLib is not built
 * with TSan and its GMutex, GRecMutex, GRWLock and GCond use futexes, not
 * pthreads, so TSan sees none of their synchronisation and would report
 * every access guarded by them as a race. These wrappers tell TSan what each
 * call does (its public mutex annotations) and forward to GLib. g_once_*
 * publish with an atomic store TSan cannot see either, and so do reference
 * counts: annotated too. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <glib.h>
#include <sanitizer/tsan_interface.h>

/* real_NAME: GLib's function, looked up once (atomically: any thread may be
 * the first to call) */
#define REAL(ret, name, ...) \
  static ret (*slot_##name) (__VA_ARGS__); \
  ret (*real_##name) (__VA_ARGS__) = \
      __atomic_load_n (&slot_##name, __ATOMIC_ACQUIRE); \
  if (!real_##name) { \
    *(void **) &real_##name = dlsym (RTLD_NEXT, #name); \
    __atomic_store_n (&slot_##name, real_##name, __ATOMIC_RELEASE); \
  }

#define try_flags(ok) \
  (__tsan_mutex_try_lock | ((ok) ? 0 : __tsan_mutex_try_lock_failed))

void
g_mutex_lock (GMutex * m)
{
  REAL (void, g_mutex_lock, GMutex *);
  __tsan_mutex_pre_lock (m, 0);
  real_g_mutex_lock (m);
  __tsan_mutex_post_lock (m, 0, 0);
}

gboolean
g_mutex_trylock (GMutex * m)
{
  gboolean ok;
  REAL (gboolean, g_mutex_trylock, GMutex *);
  __tsan_mutex_pre_lock (m, __tsan_mutex_try_lock);
  ok = real_g_mutex_trylock (m);
  __tsan_mutex_post_lock (m, try_flags (ok), 0);
  return ok;
}

void
g_mutex_unlock (GMutex * m)
{
  REAL (void, g_mutex_unlock, GMutex *);
  __tsan_mutex_pre_unlock (m, 0);
  real_g_mutex_unlock (m);
  __tsan_mutex_post_unlock (m, 0);
}

void
g_mutex_clear (GMutex * m)
{
  REAL (void, g_mutex_clear, GMutex *);
  __tsan_mutex_destroy (m, 0);
  real_g_mutex_clear (m);
}

void
g_rec_mutex_lock (GRecMutex * m)
{
  REAL (void, g_rec_mutex_lock, GRecMutex *);
  __tsan_mutex_pre_lock (m, __tsan_mutex_write_reentrant);
  real_g_rec_mutex_lock (m);
  __tsan_mutex_post_lock (m, __tsan_mutex_write_reentrant, 0);
}

gboolean
g_rec_mutex_trylock (GRecMutex * m)
{
  gboolean ok;
  REAL (gboolean, g_rec_mutex_trylock, GRecMutex *);
  __tsan_mutex_pre_lock (m, __tsan_mutex_write_reentrant |
      __tsan_mutex_try_lock);
  ok = real_g_rec_mutex_trylock (m);
  __tsan_mutex_post_lock (m, __tsan_mutex_write_reentrant | try_flags (ok),
      0);
  return ok;
}

void
g_rec_mutex_unlock (GRecMutex * m)
{
  REAL (void, g_rec_mutex_unlock, GRecMutex *);
  __tsan_mutex_pre_unlock (m, __tsan_mutex_write_reentrant);
  real_g_rec_mutex_unlock (m);
  __tsan_mutex_post_unlock (m, __tsan_mutex_write_reentrant);
}

void
g_rec_mutex_clear (GRecMutex * m)
{
  REAL (void, g_rec_mutex_clear, GRecMutex *);
  __tsan_mutex_destroy (m, 0);
  real_g_rec_mutex_clear (m);
}

void
g_rw_lock_writer_lock (GRWLock * l)
{
  REAL (void, g_rw_lock_writer_lock, GRWLock *);
  __tsan_mutex_pre_lock (l, 0);
  real_g_rw_lock_writer_lock (l);
  __tsan_mutex_post_lock (l, 0, 0);
}

void
g_rw_lock_writer_unlock (GRWLock * l)
{
  REAL (void, g_rw_lock_writer_unlock, GRWLock *);
  __tsan_mutex_pre_unlock (l, 0);
  real_g_rw_lock_writer_unlock (l);
  __tsan_mutex_post_unlock (l, 0);
}

void
g_rw_lock_reader_lock (GRWLock * l)
{
  REAL (void, g_rw_lock_reader_lock, GRWLock *);
  __tsan_mutex_pre_lock (l, __tsan_mutex_read_lock);
  real_g_rw_lock_reader_lock (l);
  __tsan_mutex_post_lock (l, __tsan_mutex_read_lock, 0);
}

void
g_rw_lock_reader_unlock (GRWLock * l)
{
  REAL (void, g_rw_lock_reader_unlock, GRWLock *);
  __tsan_mutex_pre_unlock (l, __tsan_mutex_read_lock);
  real_g_rw_lock_reader_unlock (l);
  __tsan_mutex_post_unlock (l, __tsan_mutex_read_lock);
}

/* the wait releases and retakes the mutex inside GLib */
void
g_cond_wait (GCond * c, GMutex * m)
{
  REAL (void, g_cond_wait, GCond *, GMutex *);
  __tsan_mutex_pre_unlock (m, 0);
  __tsan_mutex_post_unlock (m, 0);
  real_g_cond_wait (c, m);
  __tsan_mutex_pre_lock (m, 0);
  __tsan_mutex_post_lock (m, 0, 0);
}

gboolean
g_cond_wait_until (GCond * c, GMutex * m, gint64 end_time)
{
  gboolean r;
  REAL (gboolean, g_cond_wait_until, GCond *, GMutex *, gint64);
  __tsan_mutex_pre_unlock (m, 0);
  __tsan_mutex_post_unlock (m, 0);
  r = real_g_cond_wait_until (c, m, end_time);
  __tsan_mutex_pre_lock (m, 0);
  __tsan_mutex_post_lock (m, 0, 0);
  return r;
}

gboolean
(g_once_init_enter) (volatile void *location)
{
  gboolean r;
  REAL (gboolean, g_once_init_enter, volatile void *);
  r = real_g_once_init_enter (location);
  __tsan_acquire ((void *) location);
  return r;
}

void
(g_once_init_leave) (volatile void *location, gsize result)
{
  REAL (void, g_once_init_leave, volatile void *, gsize);
  __tsan_release ((void *) location);
  real_g_once_init_leave (location, result);
}

/* Reference counts change with atomics inside GLib/GStreamer: an instrumented
 * atomic decrement (acquire-release) orders every access before an unref
 * with the free. Calls inside libgstreamer itself do not go through these. */
gpointer
g_object_ref (gpointer obj)
{
  REAL (gpointer, g_object_ref, gpointer);
  __tsan_release (obj);
  __tsan_acquire (obj);
  return real_g_object_ref (obj);
}

void
g_object_unref (gpointer obj)
{
  REAL (void, g_object_unref, gpointer);
  __tsan_release (obj);
  __tsan_acquire (obj);
  real_g_object_unref (obj);
}

void
gst_mini_object_unref (void *obj)
{
  REAL (void, gst_mini_object_unref, void *);
  __tsan_release (obj);
  __tsan_acquire (obj);
  real_gst_mini_object_unref (obj);
}

/* GAsyncQueue locks inside GLib, out of our wrappers' reach: what one thread
 * pushes happens before what the thread that pops it does next. */
void
g_async_queue_push (GAsyncQueue * q, gpointer data)
{
  REAL (void, g_async_queue_push, GAsyncQueue *, gpointer);
  __tsan_release (q);
  real_g_async_queue_push (q, data);
}

gpointer
g_async_queue_pop (GAsyncQueue * q)
{
  gpointer data;
  REAL (gpointer, g_async_queue_pop, GAsyncQueue *);
  data = real_g_async_queue_pop (q);
  __tsan_acquire (q);
  return data;
}

gpointer
g_async_queue_try_pop (GAsyncQueue * q)
{
  gpointer data;
  REAL (gpointer, g_async_queue_try_pop, GAsyncQueue *);
  data = real_g_async_queue_try_pop (q);
  __tsan_acquire (q);
  return data;
}

gpointer
g_async_queue_timeout_pop (GAsyncQueue * q, guint64 timeout)
{
  gpointer data;
  REAL (gpointer, g_async_queue_timeout_pop, GAsyncQueue *, guint64);
  data = real_g_async_queue_timeout_pop (q, timeout);
  __tsan_acquire (q);
  return data;
}
