/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
/*
 * fftw_job: a real client of the collectives, FFTW-MPI's 3-D complex FFT,
 * timed whole (planning with FFTW_MEASURE, which makes and frees dozens of
 * communicators and times its transposes, then forward and backward
 * transforms), to see what hier costs a job that never calls the
 * collectives hier replaces, or calls them where auto keeps Open MPI's.
 * Prints one line: the slowest rank's seconds from MPI_Init's return to the
 * end, and the round trip's largest error (the data is checked).
 *
 *   fftw_job [N [REPEATS]]    an N x N x N transform (default 64), REPEATS
 *                             forward-backward pairs (default 4)
 */
#include <fftw3-mpi.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double value_at(ptrdiff_t x, ptrdiff_t y, ptrdiff_t z, int part)
{
    return sin(0.1 * (double) x + 0.7 * (double) part) + cos(0.3 * (double) y) * (double) (z % 7);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const double start = MPI_Wtime();
    const ptrdiff_t n = argc > 1 ? atol(argv[1]) : 64;
    const int repeats = argc > 2 ? atoi(argv[2]) : 4;
    ptrdiff_t local_n0, local_0_start;
    double error = 0.0, seconds, worst_error;
    int rank;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fftw_mpi_init();
    const ptrdiff_t alloc = fftw_mpi_local_size_3d(n, n, n, MPI_COMM_WORLD, &local_n0, &local_0_start);
    fftw_complex *data = fftw_alloc_complex(alloc);
    fftw_plan forward = fftw_mpi_plan_dft_3d(n, n, n, data, data, MPI_COMM_WORLD, FFTW_FORWARD, FFTW_MEASURE);
    fftw_plan backward = fftw_mpi_plan_dft_3d(n, n, n, data, data, MPI_COMM_WORLD, FFTW_BACKWARD, FFTW_MEASURE);

    /* Planning overwrote data: fill it after. */
    for (ptrdiff_t i = 0; i < local_n0; ++i) {
        for (ptrdiff_t j = 0; j < n; ++j) {
            for (ptrdiff_t k = 0; k < n; ++k) {
                const ptrdiff_t at = (i * n + j) * n + k;
                data[at][0] = value_at(local_0_start + i, j, k, 0);
                data[at][1] = value_at(local_0_start + i, j, k, 1);
            }
        }
    }
    for (int r = 0; r < repeats; ++r) {
        fftw_execute(forward);
        fftw_execute(backward);
        /* Unnormalized: the round trip multiplies by n^3. */
        for (ptrdiff_t at = 0; at < local_n0 * n * n; ++at) {
            data[at][0] /= (double) (n * n * n);
            data[at][1] /= (double) (n * n * n);
        }
    }
    for (ptrdiff_t i = 0; i < local_n0; ++i) {
        for (ptrdiff_t j = 0; j < n; ++j) {
            for (ptrdiff_t k = 0; k < n; ++k) {
                const ptrdiff_t at = (i * n + j) * n + k;
                error = fmax(error, fabs(data[at][0] - value_at(local_0_start + i, j, k, 0)));
                error = fmax(error, fabs(data[at][1] - value_at(local_0_start + i, j, k, 1)));
            }
        }
    }
    fftw_destroy_plan(forward);
    fftw_destroy_plan(backward);
    fftw_free(data);
    seconds = MPI_Wtime() - start;
    MPI_Reduce(rank == 0 ? MPI_IN_PLACE : &seconds, &seconds, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&error, &worst_error, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (0 == rank) {
        printf("fftw_job: n=%ld repeats=%d seconds=%.3f max_error=%.3g %s\n", (long) n, repeats, seconds, worst_error,
               worst_error < 1e-9 ? "valid" : "INVALID");
    }
    fftw_mpi_cleanup();
    MPI_Finalize();
    return worst_error < 1e-9 ? 0 : 1;
}
