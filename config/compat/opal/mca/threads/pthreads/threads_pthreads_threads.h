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
 * opal/mca/threads/pthreads/threads_pthreads_threads.h (not installed; see
 * threads_pthreads_mutex.h beside it): yielding goes through the function
 * libopen-pal exports for it.
 */
#ifndef HIER_COMPAT_THREADS_PTHREADS_THREADS_H
#define HIER_COMPAT_THREADS_PTHREADS_THREADS_H

#include <pthread.h>

#include "opal/mca/threads/threads.h"

#define OPAL_THREAD_YIELD_WHEN_IDLE_DEFAULT false

typedef void(opal_threads_pthreads_yield_fn_t)(void);
OPAL_DECLSPEC extern opal_threads_pthreads_yield_fn_t *opal_threads_pthreads_yield_fn;

static inline void opal_thread_yield(void)
{
    opal_threads_pthreads_yield_fn();
}

#endif /* HIER_COMPAT_THREADS_PTHREADS_THREADS_H */
