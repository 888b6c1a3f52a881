/*
 * coll/hier MPI_Alltoallv: the alltoall schedules over blocks of different
 * sizes (block j of the send buffer, scounts[j] elements at sdispls[j], goes
 * to rank j). Hands the call to the previous module when the core says
 * fallback.
 *
 * A schedule that forwards blocks through TMP (lg) needs to know the size of
 * every TMP block before the data moves, and no rank knows the sizes of the
 * blocks it forwards. So the same cached schedule first runs over blocks of
 * one 8-byte integer holding each block's size in bytes: the sizes travel
 * exactly where the data will, and each rank finds in its TMP the size of
 * every block it will hold there. TMP is then laid out packed (MPI_PACKED)
 * and the schedule runs over the data. That costs one more pass of small
 * messages (as many messages, in as many steps, as the data pass); schedules
 * without TMP (factor, edgecolor, pairwise) skip it. The size pass also
 * hands every rank the sizes it receives, which its own counts already say.
 */
#include "coll_hier.h"

#include <string.h>

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/coll_tags.h"

/* MPI_IN_PLACE: the data to send is in the receive buffer, which the
 * schedule writes while it reads: send from a packed copy of its blocks,
 * whose p + 1 offsets go to `offsets`. */
static int hier_alltoallv_in_place(mca_coll_hier_module_t *module, size_t p, const mca_coll_hier_layout_t *recv,
                                   size_t *offsets, mca_coll_hier_layout_t *send)
{
    size_t total = 0;
    int rc;

    for (size_t block = 0; block < p; ++block) {
        offsets[block] = total;
        total += mca_coll_hier_block_bytes(recv, block);
    }
    offsets[p] = total;
    rc = mca_coll_hier_grow(&module->in_place, &module->in_place_size, total);
    for (size_t block = 0; block < p && OMPI_SUCCESS == rc; ++block) {
        rc = mca_coll_hier_pack_block(recv, block, (char *) module->in_place + offsets[block]);
    }
    mca_coll_hier_layout_packed(send, module->in_place, offsets);
    return rc;
}

/* The size pass: TMP laid out packed from the sizes the schedule moves, its
 * tmp_blocks + 1 offsets in `offsets`. */
static int hier_alltoallv_layout_tmp(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm,
                                     const hier_schedule_t *schedule, size_t *offsets,
                                     mca_coll_hier_layout_t buffers[3])
{
    const size_t p = (size_t) ompi_comm_size(comm), tmp_blocks = hier_schedule_tmp_blocks(schedule);
    mca_coll_hier_layout_t sizes[3];
    uint64_t *send, *recv, *tmp;
    int rc = mca_coll_hier_grow(&module->sizes, &module->sizes_size, (2 * p + tmp_blocks) * sizeof(*send));

    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    send = module->sizes;
    recv = send + p;
    tmp = recv + p;
    for (size_t block = 0; block < p; ++block) {
        send[block] = mca_coll_hier_block_bytes(&buffers[HIER_BUF_SEND], block);
    }
    memset(recv, 0, (p + tmp_blocks) * sizeof(*recv));
    mca_coll_hier_layout(&sizes[HIER_BUF_SEND], send, 1, MPI_UINT64_T);
    mca_coll_hier_layout(&sizes[HIER_BUF_RECV], recv, 1, MPI_UINT64_T);
    mca_coll_hier_layout(&sizes[HIER_BUF_TMP], tmp, 1, MPI_UINT64_T);
    rc = mca_coll_hier_run(module, comm, MCA_COLL_BASE_TAG_ALLTOALLV, schedule, sizes, NULL);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    offsets[0] = 0;
    for (size_t block = 0; block < tmp_blocks; ++block) {
        offsets[block + 1] = offsets[block] + (size_t) tmp[block];
    }
    rc = mca_coll_hier_grow(&module->tmp, &module->tmp_size, offsets[tmp_blocks]);
    mca_coll_hier_layout_packed(&buffers[HIER_BUF_TMP], module->tmp, offsets);
    return rc;
}

int mca_coll_hier_alltoallv(const void *sbuf, const int *scounts, const int *sdispls,
                            struct ompi_datatype_t *sdtype, void *rbuf, const int *rcounts,
                            const int *rdispls, struct ompi_datatype_t *rdtype,
                            struct ompi_communicator_t *comm, mca_coll_base_module_t *base)
{
    mca_coll_hier_module_t *module = (mca_coll_hier_module_t *) base;
    const bool in_place = MPI_IN_PLACE == sbuf;
    const size_t p = (size_t) ompi_comm_size(comm);
    mca_coll_hier_layout_t buffers[3];
    const hier_schedule_t *schedule;
    size_t tmp_blocks, *send_offsets, *tmp_offsets;
    int rc;

    /* Block sizes differ from rank to rank, so the choice cannot depend on
     * them: every rank must take the same one. */
    schedule = mca_coll_hier_choose(module, comm, HIER_OP_ALLTOALLV, -1, 0, NULL);
    if (NULL == schedule) {
        return module->previous.alltoallv(sbuf, scounts, sdispls, sdtype, rbuf, rcounts, rdispls, rdtype, comm,
                                          module->previous.alltoallv_module);
    }

    /* Offsets of packed layouts: the in-place copy's p + 1, then TMP's. */
    tmp_blocks = hier_schedule_tmp_blocks(schedule);
    rc = mca_coll_hier_grow(&module->offsets, &module->offsets_size, (p + tmp_blocks + 2) * sizeof(size_t));
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    send_offsets = module->offsets;
    tmp_offsets = send_offsets + (in_place ? p + 1 : 0);

    mca_coll_hier_layout_variable(&buffers[HIER_BUF_RECV], rbuf, rcounts, rdispls, rdtype);
    if (in_place) {
        rc = hier_alltoallv_in_place(module, p, &buffers[HIER_BUF_RECV], send_offsets, &buffers[HIER_BUF_SEND]);
    } else {
        mca_coll_hier_layout_variable(&buffers[HIER_BUF_SEND], sbuf, scounts, sdispls, sdtype);
    }
    tmp_offsets[0] = 0;
    mca_coll_hier_layout_packed(&buffers[HIER_BUF_TMP], NULL, tmp_offsets);
    if (OMPI_SUCCESS == rc && tmp_blocks > 0) {
        rc = hier_alltoallv_layout_tmp(module, comm, schedule, tmp_offsets, buffers);
    }
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    return mca_coll_hier_run(module, comm, MCA_COLL_BASE_TAG_ALLTOALLV, schedule, buffers, NULL);
}
