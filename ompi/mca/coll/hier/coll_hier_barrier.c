/*
 * coll/hier MPI_Barrier: a schedule of empty messages (blocks of 0 bytes)
 * after which every rank has heard, through some chain of messages, from
 * every other rank.
 */
#include "coll_hier.h"

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/coll_tags.h"

int mca_coll_hier_barrier(struct ompi_communicator_t *comm, mca_coll_base_module_t *base)
{
    mca_coll_hier_module_t *module = (mca_coll_hier_module_t *) base;
    mca_coll_hier_layout_t buffers[3];
    const hier_schedule_t *schedule = mca_coll_hier_choose(module, comm, HIER_OP_BARRIER, -1, 0, NULL);

    if (NULL == schedule) {
        return module->previous.barrier(comm, module->previous.barrier_module);
    }
    mca_coll_hier_layout(&buffers[HIER_BUF_SEND], NULL, 0, &ompi_mpi_byte.dt);
    buffers[HIER_BUF_RECV] = buffers[HIER_BUF_SEND];
    return mca_coll_hier_execute(module, comm, MCA_COLL_BASE_TAG_BARRIER, schedule, buffers,
                                 &buffers[HIER_BUF_RECV], NULL);
}
