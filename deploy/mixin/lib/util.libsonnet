{
  // A ||| text block as one line: newlines become spaces (what YAML's `>-` does), the trailing one goes.
  fold(text):: std.stripChars(std.strReplace(text, '\n', ' '), ' '),

  // Each alert of `groups` gets `runbook_url`: `pattern` with the alert name in lower case, which is the
  // GitHub anchor of the alert's `## AlertName` section in docs/runbook.md.
  withRunbookURLs(groups, pattern):: [
    group {
      rules: [
        if std.objectHas(rule, 'alert')
        then rule { annotations+: { runbook_url: pattern % std.asciiLower(rule.alert) } }
        else rule
        for rule in group.rules
      ],
    }
    for group in groups
  ],
}
