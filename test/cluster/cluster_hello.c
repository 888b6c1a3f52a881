/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
/* cluster_hello: the smallest check of the emulated cluster (run_cluster_tests.sh).
 *
 * Every rank prints its host name (gethostname: the UTS namespace hier-rsh set
 * up) and the size of its MPI_COMM_TYPE_SHARED communicator (Open MPI's own
 * idea of which ranks share a node), then all ranks do an MPI_Alltoall of
 * ints and check every value. Rank 0 prints "cluster_hello: alltoall ok" or
 * "cluster_hello: alltoall FAILED (N bad values)"; the exit code says the same.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size, local_size, i, bad = 0, total_bad = 0;
    char host[256];
    MPI_Comm local;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    gethostname(host, sizeof host);
    host[sizeof host - 1] = '\0';
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
    MPI_Comm_size(local, &local_size);
    printf("cluster_hello: rank %d of %d on %s (shares memory with %d)\n", rank, size, host, local_size);
    fflush(stdout);

    int *out = malloc(sizeof(int) * size), *in = malloc(sizeof(int) * size);
    for (i = 0; i < size; i++) {
        out[i] = rank * 1000 + i;   /* what rank i must find at index rank */
        in[i] = -1;
    }
    MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, MPI_COMM_WORLD);
    for (i = 0; i < size; i++)
        if (in[i] != i * 1000 + rank) bad++;
    MPI_Reduce(&bad, &total_bad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (total_bad) printf("cluster_hello: alltoall FAILED (%d bad values)\n", total_bad);
        else printf("cluster_hello: alltoall ok\n");
    }
    MPI_Bcast(&total_bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(out);
    free(in);
    MPI_Comm_free(&local);
    MPI_Finalize();
    return total_bad ? 1 : 0;
}
