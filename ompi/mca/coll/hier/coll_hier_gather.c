/*
 * coll/hier MPI_Gather: rank j's block lands in block j of the root's
 * receive buffer. Asks the core for a schedule for this call and runs it
 * over the PML; hands the call to the previous module when the core says
 * fallback.
 */
#include "coll_hier.h"

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/coll_tags.h"

int mca_coll_hier_gather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                         void *rbuf, int rcount, struct ompi_datatype_t *rdtype, int root,
                         struct ompi_communicator_t *comm, mca_coll_base_module_t *base)
{
    mca_coll_hier_module_t *module = (mca_coll_hier_module_t *) base;
    const bool is_root = ompi_comm_rank(comm) == root;
    mca_coll_hier_layout_t buffers[3];
    const hier_schedule_t *schedule;
    size_t type_size;

    /* The root's receive signature equals every send signature (the root's
     * send arguments are ignored with MPI_IN_PLACE). */
    ompi_datatype_type_size(is_root ? rdtype : sdtype, &type_size);
    const size_t block_bytes = type_size * (size_t) (is_root ? rcount : scount);
    if (0 == block_bytes) {
        return MPI_SUCCESS;
    }
    schedule = mca_coll_hier_choose(module, comm, HIER_OP_GATHER, root, block_bytes, NULL);
    if (NULL == schedule) {
        return module->previous.gather(sbuf, scount, sdtype, rbuf, rcount, rdtype, root, comm,
                                       module->previous.gather_module);
    }

    if (is_root) {
        mca_coll_hier_layout(&buffers[HIER_BUF_RECV], rbuf, (size_t) rcount, rdtype);
        if (MPI_IN_PLACE == sbuf) {
            /* The root's own block is in place in the receive buffer. */
            mca_coll_hier_layout_at(&buffers[HIER_BUF_SEND], &buffers[HIER_BUF_RECV], (size_t) root);
        } else {
            mca_coll_hier_layout(&buffers[HIER_BUF_SEND], sbuf, (size_t) scount, sdtype);
        }
    } else {
        mca_coll_hier_layout(&buffers[HIER_BUF_SEND], sbuf, (size_t) scount, sdtype);
        mca_coll_hier_layout(&buffers[HIER_BUF_RECV], NULL, 0, sdtype);
    }
    /* TMP blocks are laid out like the ones a rank holds: the root's receive
     * buffer's, everyone else's send buffer's. */
    return mca_coll_hier_execute(module, comm, MCA_COLL_BASE_TAG_GATHER, schedule, buffers,
                                 &buffers[is_root ? HIER_BUF_RECV : HIER_BUF_SEND], NULL);
}
