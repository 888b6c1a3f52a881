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
 * opal/mca/threads/pthreads/threads_pthreads_tsd.h (not installed; see
 * threads_pthreads_mutex.h beside it): thread-specific data is pthread's.
 */
#ifndef HIER_COMPAT_THREADS_PTHREADS_TSD_H
#define HIER_COMPAT_THREADS_PTHREADS_TSD_H

#include <pthread.h>

typedef pthread_key_t opal_tsd_key_t;

static inline int opal_tsd_key_delete(opal_tsd_key_t key)
{
    return 0 == pthread_key_delete(key) ? OPAL_SUCCESS : OPAL_ERR_IN_ERRNO;
}

static inline int opal_tsd_set(opal_tsd_key_t key, void *value)
{
    return 0 == pthread_setspecific(key, value) ? OPAL_SUCCESS : OPAL_ERR_IN_ERRNO;
}

static inline int opal_tsd_get(opal_tsd_key_t key, void **valuep)
{
    *valuep = pthread_getspecific(key);
    return OPAL_SUCCESS;
}

#endif /* HIER_COMPAT_THREADS_PTHREADS_TSD_H */
