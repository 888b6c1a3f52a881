/*
 * coll/hier MPI_Alltoall: asks the core for a schedule for this call and runs
 * it over the PML; hands the call to the previous module when the core says
 * fallback. Block b of the send buffer goes to rank b. A call auto measures
 * (hier_comm_decide's trial) is timed here, from the instant every rank
 * starts it at (mca_coll_hier_trial_start).
 */
#include "coll_hier.h"

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/coll_tags.h"

/* MPI_IN_PLACE: the schedule reads the send buffer while it writes the
 * receive buffer, so send from a copy of the receive buffer, laid out like it
 * (rcount elements of rdtype per block). */
static int hier_alltoall_in_place(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm,
                                  const mca_coll_hier_layout_t *recv, mca_coll_hier_layout_t *send)
{
    const size_t elements = (size_t) ompi_comm_size(comm) * recv->count;
    int rc = mca_coll_hier_scratch(&module->in_place, &module->in_place_size,
                                   (size_t) ompi_comm_size(comm), recv->count, recv->dtype, send);

    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    return ompi_datatype_copy_content_same_ddt(recv->dtype, elements, send->base, recv->base);
}

/* One call, by the schedule or, when it is NULL, by the previous module. */
static int hier_alltoall_run(mca_coll_hier_module_t *module, const hier_schedule_t *schedule,
                             const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                             void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                             struct ompi_communicator_t *comm)
{
    mca_coll_hier_layout_t buffers[3];
    int rc;

    if (NULL == schedule) {
        return module->previous.alltoall(sbuf, scount, sdtype, rbuf, rcount, rdtype, comm,
                                         module->previous.alltoall_module);
    }
    mca_coll_hier_layout(&buffers[HIER_BUF_RECV], rbuf, (size_t) rcount, rdtype);
    if (MPI_IN_PLACE == sbuf) {
        rc = hier_alltoall_in_place(module, comm, &buffers[HIER_BUF_RECV], &buffers[HIER_BUF_SEND]);
    } else {
        mca_coll_hier_layout(&buffers[HIER_BUF_SEND], sbuf, (size_t) scount, sdtype);
        rc = OMPI_SUCCESS;
    }
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    /* TMP blocks are laid out like the receive buffer's. */
    return mca_coll_hier_execute(module, comm, MCA_COLL_BASE_TAG_ALLTOALL, schedule, buffers,
                                 &buffers[HIER_BUF_RECV], NULL);
}

int mca_coll_hier_alltoall(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                           void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                           struct ompi_communicator_t *comm, mca_coll_base_module_t *base)
{
    mca_coll_hier_module_t *module = (mca_coll_hier_module_t *) base;
    const hier_schedule_t *schedule;
    size_t type_size, block_bytes;
    int trial_call, rc;
    double start = 0;

    /* Every rank receives the same number of bytes per block (the send side
     * has the same signature), so every rank takes the same branches. */
    ompi_datatype_type_size(rdtype, &type_size);
    block_bytes = type_size * (size_t) rcount;
    if (0 == block_bytes) {
        return MPI_SUCCESS;
    }
    schedule = mca_coll_hier_choose_or_measure(module, comm, HIER_OP_ALLTOALL, -1, block_bytes, NULL,
                                               &trial_call);
    if (trial_call >= 0) {
        rc = mca_coll_hier_trial_start(module, comm, trial_call, &start);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    rc = hier_alltoall_run(module, schedule, sbuf, scount, sdtype, rbuf, rcount, rdtype, comm);
    if (OMPI_SUCCESS != rc || trial_call < 0) {
        return rc;
    }
    return mca_coll_hier_trial_record(module, comm, HIER_OP_ALLTOALL, block_bytes, trial_call,
                                      mca_coll_hier_now() - start);
}
