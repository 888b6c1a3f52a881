/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// Slurm's switch tree as clusters (core/slurm_topology.cc): topology.conf's
// leaf switches, the "slurm" levels, SLURM_TOPOLOGY_ADDR cut at a level.
#include <gtest/gtest.h>

#include "hostmap.h"
#include "slurm_topology.h"

namespace hier {
namespace {

std::string leaves_of(const std::string &text, std::string *error)
{
    error->clear();
    return leaf_host_map_of_topology_conf(text, error);
}

TEST(TopologyConf, LeafSwitchesBecomeAHostMap)
{
    std::string error;
    const std::string conf = "# two leaves under a spine\n"
                             "SwitchName=leaf1 Nodes=node[01-16,20]\n"
                             "\n"
                             "switchname=leaf2 nodes=node[17-19],gpu1 LinkSpeed=100  # comment\r\n"
                             "SwitchName=spine Switches=leaf[1-2]\n";
    EXPECT_EQ(leaves_of(conf, &error), "leaf1:node[01-16,20];leaf2:node[17-19],gpu1");
    EXPECT_EQ(error, "");
    EXPECT_EQ(check_host_map(leaves_of(conf, &error)), "");
    // The map matches hosts by Slurm's padding rule.
    EXPECT_EQ(clusters_from_host_map(leaves_of(conf, &error), Topology({0, 1, 2, 3}),
                                     {"node05", "node18", "gpu1", "node20.cluster"}, false, &error),
              (std::vector<int>{0, 1, 1, 0}));
    EXPECT_EQ(error, "");
}

TEST(TopologyConf, RejectsEveryMalformedLineInOneLine)
{
    const std::pair<const char *, const char *> cases[] = {
        {"", "has no leaf switch"},
        {"# only a comment\n", "has no leaf switch"},
        {"SwitchName=spine Switches=leaf1\n", "has no leaf switch"},
        {"Nodes=n1 SwitchName=s\n", "line 1 does not start with SwitchName="},
        {"SwitchName=s Nodes=n1 SwitchName=t\n", "line 1 names SwitchName= twice"},
        {"SwitchName=s Nodes=n1 Nodes=n2\n", "line 1 names Nodes= twice"},
        {"SwitchName=s\n", "line 1 has switch \"s\" without Nodes= or Switches="},
        {"SwitchName=s Nodes\n", "line 1 has \"Nodes\", not KEY=VALUE"},
        {"SwitchName=s Nodes=\n", "line 1 has \"Nodes=\", not KEY=VALUE"},
        {"SwitchName=s Nodes=n[3-1]\n", "line 1 has Nodes=\"n[3-1]\", not a Slurm hostlist"},
        {"SwitchName=s Nodes=n[1-3\n", "line 1 has Nodes=\"n[1-3\", not a Slurm hostlist"},
        {"SwitchName=s Nodes=n1;n2\n", "not a Slurm hostlist"},
        {"SwitchName=s Nodes=n1,,n2\n", "not a Slurm hostlist"},
        {"SwitchName=s Switches=a[x]\n", "line 1 has Switches=\"a[x]\", not a Slurm hostlist"},
        {"SwitchName=s:t Nodes=n1\n", "line 1 has switch name \"s:t\""},
        {"SwitchName=s Nodes=n1 Speed=3\n", "line 1 has key \"Speed\""},
        {"SwitchName=s Nodes=n1\nSwitchName=s Nodes=n2\n", "line 2 names switch \"s\" again"},
    };
    for (const auto &[text, says] : cases) {
        std::string error;
        EXPECT_EQ(leaves_of(text, &error), "") << text;
        EXPECT_NE(error.find(says), std::string::npos) << text << ": " << error;
        EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    }
}

TEST(SlurmAddress, LevelsOfTheMap)
{
    std::string error;
    EXPECT_TRUE(is_slurm_map("slurm"));
    EXPECT_TRUE(is_slurm_map("slurm:2"));
    EXPECT_FALSE(is_slurm_map("slurmx:h1"));
    EXPECT_EQ(slurm_level_of("slurm", &error), 0);
    EXPECT_EQ(slurm_level_of("slurm:leaf", &error), 0);
    EXPECT_EQ(slurm_level_of("slurm:1", &error), 1);
    EXPECT_EQ(slurm_level_of("slurm:12", &error), 12);
    EXPECT_EQ(error, "");
    for (const char *bad : {"slurm:", "slurm:0", "slurm:x", "slurm:-1", "slurm:100", "slurm:leaf2", "slurm:1.5"}) {
        error.clear();
        EXPECT_EQ(slurm_level_of(bad, &error), -1) << bad;
        EXPECT_EQ(error.find("coll_hier_cluster_map \"" + std::string(bad) + "\" is not slurm, slurm:leaf or "
                             "slurm:LEVEL"),
                  0u)
            << error;
    }
}

TEST(SlurmAddress, ClusterAtALevel)
{
    std::string error;
    EXPECT_EQ(slurm_cluster_of("spine1.leaf3.node042", "switch.switch.node", 0, &error), "spine1.leaf3");
    EXPECT_EQ(slurm_cluster_of("spine1.leaf3.node042", "", 0, &error), "spine1.leaf3");
    EXPECT_EQ(slurm_cluster_of("spine1.leaf3.node042", "", 1, &error), "spine1");
    EXPECT_EQ(slurm_cluster_of("spine1.leaf3.node042", "", 2, &error), "spine1.leaf3");
    EXPECT_EQ(slurm_cluster_of("leaf3.node042", "switch.node", 0, &error), "leaf3");
    EXPECT_EQ(error, "");
    const std::tuple<const char *, const char *, int, const char *> cases[] = {
        {"node042", "", 0, "names no switch above the node"},
        {"spine1..node042", "", 0, "is not names separated by '.'"},
        {"spine1.leaf3.", "", 0, "is not names separated by '.'"},
        {"spine 1.node", "", 0, "is not names separated by '.'"},
        {"spine1.leaf3.node042", "", 3, "has 2 switch level(s), fewer than 3"},
        {"spine1.leaf3.node042", "switch.node", 0, "does not describe"},
        {"spine1.leaf3.node042", "switch.node.node", 0, "does not describe"},
        {"spine1.leaf3.node042", "switch.switch.switch", 0, "does not describe"},
    };
    for (const auto &[address, pattern, level, says] : cases) {
        error.clear();
        EXPECT_EQ(slurm_cluster_of(address, pattern, level, &error), "") << address;
        EXPECT_NE(error.find(says), std::string::npos) << address << ": " << error;
    }
}

} // namespace
} // namespace hier
