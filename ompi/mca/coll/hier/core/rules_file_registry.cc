/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The rules file with the registry's algorithms (rules_file.h). Apart from
// rules_file.cc so that the fuzz target builds that alone.
#include "registry.h"
#include "rules_file.h"

namespace hier {

RulesVocabulary registry_vocabulary()
{
    return RulesVocabulary{algorithm_id_count, algorithm_id_name};
}

bool parse_rules(std::string_view text, RuleSet *rules, std::string *error)
{
    return parse_rules(text, registry_vocabulary(), rules, error);
}

std::string format_rules(const RuleSet &rules)
{
    return format_rules(rules, registry_vocabulary());
}

bool load_rules_file(const std::string &path, RuleSet *rules, std::string *error)
{
    return load_rules_file(path, registry_vocabulary(), rules, error);
}

} // namespace hier
