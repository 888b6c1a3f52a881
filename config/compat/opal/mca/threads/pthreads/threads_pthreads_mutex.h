/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
/*
 * coll/hier's stand-in for Open MPI 5's
 * opal/mca/threads/pthreads/threads_pthreads_mutex.h.
 *
 * Open MPI 5's installed opal_config.h names this header as the mutex
 * implementation, but the install does not ship it (upstream marks it noinst),
 * so no component built against installed headers could include a
 * communicator. configure adds this directory to the include path only when
 * the installed Open MPI lacks the real header.
 *
 * The types are the pthreads ones the real header uses (the layout of every
 * structure holding a mutex depends on it); the functions are the plain
 * pthread calls of a build without OPAL_ENABLE_DEBUG.
 */
#ifndef HIER_COMPAT_THREADS_PTHREADS_MUTEX_H
#define HIER_COMPAT_THREADS_PTHREADS_MUTEX_H

#include "opal_config.h"

#include <pthread.h>
#include <stdbool.h>

#include "opal/constants.h"

typedef pthread_mutex_t opal_thread_internal_mutex_t;
typedef pthread_cond_t opal_thread_internal_cond_t;

#define OPAL_THREAD_INTERNAL_MUTEX_INITIALIZER PTHREAD_MUTEX_INITIALIZER
#define OPAL_THREAD_INTERNAL_RECURSIVE_MUTEX_INITIALIZER PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP
#define OPAL_THREAD_INTERNAL_COND_INITIALIZER PTHREAD_COND_INITIALIZER

static inline int opal_thread_internal_mutex_init(opal_thread_internal_mutex_t *mutex, bool recursive)
{
    pthread_mutexattr_t attr;
    int rc;

    pthread_mutexattr_init(&attr);
    if (recursive) {
        pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    }
    rc = pthread_mutex_init(mutex, &attr);
    pthread_mutexattr_destroy(&attr);
    return 0 == rc ? OPAL_SUCCESS : OPAL_ERR_IN_ERRNO;
}

static inline void opal_thread_internal_mutex_lock(opal_thread_internal_mutex_t *mutex)
{
    pthread_mutex_lock(mutex);
}

static inline int opal_thread_internal_mutex_trylock(opal_thread_internal_mutex_t *mutex)
{
    return 0 == pthread_mutex_trylock(mutex) ? 0 : 1;
}

static inline void opal_thread_internal_mutex_unlock(opal_thread_internal_mutex_t *mutex)
{
    pthread_mutex_unlock(mutex);
}

static inline void opal_thread_internal_mutex_destroy(opal_thread_internal_mutex_t *mutex)
{
    pthread_mutex_destroy(mutex);
}

static inline int opal_thread_internal_cond_init(opal_thread_internal_cond_t *cond)
{
    return 0 == pthread_cond_init(cond, NULL) ? OPAL_SUCCESS : OPAL_ERR_IN_ERRNO;
}

static inline void opal_thread_internal_cond_wait(opal_thread_internal_cond_t *cond,
                                                  opal_thread_internal_mutex_t *mutex)
{
    pthread_cond_wait(cond, mutex);
}

static inline void opal_thread_internal_cond_broadcast(opal_thread_internal_cond_t *cond)
{
    pthread_cond_broadcast(cond);
}

static inline void opal_thread_internal_cond_signal(opal_thread_internal_cond_t *cond)
{
    pthread_cond_signal(cond);
}

static inline void opal_thread_internal_cond_destroy(opal_thread_internal_cond_t *cond)
{
    pthread_cond_destroy(cond);
}

#endif /* HIER_COMPAT_THREADS_PTHREADS_MUTEX_H */
