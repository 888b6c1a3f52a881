/*
 * coll/hier MPI_Allreduce: one block, the whole vector; schedules reduce it
 * block by block with the call's operation. Schedules may combine operands
 * in any order, so non-commutative operations go to the previous module.
 */
#include "coll_hier.h"

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/coll_tags.h"
#include "ompi/op/op.h"

int mca_coll_hier_allreduce(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
                            struct ompi_op_t *op, struct ompi_communicator_t *comm,
                            mca_coll_base_module_t *base)
{
    mca_coll_hier_module_t *module = (mca_coll_hier_module_t *) base;
    mca_coll_hier_layout_t buffers[3];
    const hier_schedule_t *schedule;
    size_t type_size;

    ompi_datatype_type_size(dtype, &type_size);
    if (0 == type_size * (size_t) count) {
        return MPI_SUCCESS;
    }
    schedule = mca_coll_hier_choose(module, comm, HIER_OP_ALLREDUCE, -1, type_size * (size_t) count,
                                    ompi_op_is_commute(op) ? NULL : "non-commutative operation");
    if (NULL == schedule) {
        return module->previous.allreduce(sbuf, rbuf, count, dtype, op, comm,
                                          module->previous.allreduce_module);
    }

    mca_coll_hier_layout(&buffers[HIER_BUF_RECV], rbuf, (size_t) count, dtype);
    if (MPI_IN_PLACE == sbuf) {
        buffers[HIER_BUF_SEND] = buffers[HIER_BUF_RECV];
    } else {
        mca_coll_hier_layout(&buffers[HIER_BUF_SEND], sbuf, (size_t) count, dtype);
    }
    return mca_coll_hier_execute(module, comm, MCA_COLL_BASE_TAG_ALLREDUCE, schedule, buffers,
                                 &buffers[HIER_BUF_RECV], op);
}
