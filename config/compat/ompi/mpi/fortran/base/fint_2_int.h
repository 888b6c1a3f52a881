/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
/*
 * coll/hier's stand-in for Open MPI's ompi/mpi/fortran/base/fint_2_int.h.
 *
 * ompi/op/op.h includes that header, but Debian's libopenmpi-dev does not
 * ship it, so no component built against Debian's headers could include
 * op.h. configure adds this directory to the include path only when the
 * installed Open MPI lacks the real header.
 *
 * op.h needs only OMPI_INT_2_FINT, to hand a C int to a Fortran reduction
 * callback as an MPI_Fint; this is that conversion and nothing more.
 */
#ifndef OMPI_FORTRAN_BASE_FINT_2_INT_H
#define OMPI_FORTRAN_BASE_FINT_2_INT_H

#include "mpi.h"

#define OMPI_INT_2_FINT(a) ((MPI_Fint) (a))

#endif /* OMPI_FORTRAN_BASE_FINT_2_INT_H */
