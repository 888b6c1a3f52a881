/*
 * coll/hier MPI_Scatter: the root's block j goes to rank j. Asks the core for
 * a schedule for this call and runs it over the PML; hands the call to the
 * previous module when the core says fallback.
 */
#include "coll_hier.h"

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/coll_tags.h"

int mca_coll_hier_scatter(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                          void *rbuf, int rcount, struct ompi_datatype_t *rdtype, int root,
                          struct ompi_communicator_t *comm, mca_coll_base_module_t *base)
{
    mca_coll_hier_module_t *module = (mca_coll_hier_module_t *) base;
    const bool is_root = ompi_comm_rank(comm) == root;
    mca_coll_hier_layout_t buffers[3];
    const hier_schedule_t *schedule;
    size_t type_size;

    /* The root's send signature equals every receive signature (the root's
     * receive arguments are ignored with MPI_IN_PLACE): every rank computes
     * the same block size and takes the same branches. */
    ompi_datatype_type_size(is_root ? sdtype : rdtype, &type_size);
    const size_t block_bytes = type_size * (size_t) (is_root ? scount : rcount);
    if (0 == block_bytes) {
        return MPI_SUCCESS;
    }
    schedule = mca_coll_hier_choose(module, comm, HIER_OP_SCATTER, root, block_bytes, NULL);
    if (NULL == schedule) {
        return module->previous.scatter(sbuf, scount, sdtype, rbuf, rcount, rdtype, root, comm,
                                        module->previous.scatter_module);
    }

    if (is_root) {
        mca_coll_hier_layout(&buffers[HIER_BUF_SEND], sbuf, (size_t) scount, sdtype);
        if (MPI_IN_PLACE == rbuf) {
            /* The root's own block stays where it is in the send buffer. */
            mca_coll_hier_layout_at(&buffers[HIER_BUF_RECV], &buffers[HIER_BUF_SEND], (size_t) root);
        } else {
            mca_coll_hier_layout(&buffers[HIER_BUF_RECV], rbuf, (size_t) rcount, rdtype);
        }
    } else {
        mca_coll_hier_layout(&buffers[HIER_BUF_SEND], NULL, 0, rdtype);
        mca_coll_hier_layout(&buffers[HIER_BUF_RECV], rbuf, (size_t) rcount, rdtype);
    }
    /* Blocks the root or a forwarding rank holds in TMP are laid out like
     * the ones it sends: the root's send buffer's, everyone else's receive
     * buffer's. */
    return mca_coll_hier_execute(module, comm, MCA_COLL_BASE_TAG_SCATTER, schedule, buffers,
                                 &buffers[is_root ? HIER_BUF_SEND : HIER_BUF_RECV], NULL);
}
