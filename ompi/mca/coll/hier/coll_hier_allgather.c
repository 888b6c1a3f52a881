/*
 * coll/hier MPI_Allgather: rank j's block lands in block j of every receive
 * buffer. Asks the core for a schedule for this call and runs it over the
 * PML; hands the call to the previous module when the core says fallback.
 * (The module also gathers its topology with the previous allgather, never
 * with this one.)
 */
#include "coll_hier.h"

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/coll_tags.h"

int mca_coll_hier_allgather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                            void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                            struct ompi_communicator_t *comm, mca_coll_base_module_t *base)
{
    mca_coll_hier_module_t *module = (mca_coll_hier_module_t *) base;
    mca_coll_hier_layout_t buffers[3];
    const hier_schedule_t *schedule;
    size_t type_size;

    ompi_datatype_type_size(rdtype, &type_size);
    if (0 == type_size * (size_t) rcount) {
        return MPI_SUCCESS;
    }
    schedule = mca_coll_hier_choose(module, comm, HIER_OP_ALLGATHER, -1, type_size * (size_t) rcount,
                                    NULL);
    if (NULL == schedule) {
        return module->previous.allgather(sbuf, scount, sdtype, rbuf, rcount, rdtype, comm,
                                          module->previous.allgather_module);
    }

    mca_coll_hier_layout(&buffers[HIER_BUF_RECV], rbuf, (size_t) rcount, rdtype);
    if (MPI_IN_PLACE == sbuf) {
        /* My block is in place in the receive buffer. */
        mca_coll_hier_layout_at(&buffers[HIER_BUF_SEND], &buffers[HIER_BUF_RECV],
                                (size_t) ompi_comm_rank(comm));
    } else {
        mca_coll_hier_layout(&buffers[HIER_BUF_SEND], sbuf, (size_t) scount, sdtype);
    }
    return mca_coll_hier_execute(module, comm, MCA_COLL_BASE_TAG_ALLGATHER, schedule, buffers,
                                 &buffers[HIER_BUF_RECV], NULL);
}
