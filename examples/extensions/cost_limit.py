"""Cost limit: stop running tools once the session has spent its budget.

Shows state kept across events: `usage` adds up what each model response cost and warns the
moment the budget is crossed; from then on `tool_call` blocks every call, so the model must wrap
up. An unpriced model costs nothing here. Setting: `{"cost_limit": {"max_usd": 1.0}}`.
"""


def extension(g):
    max_usd = g.setting("max_usd", 1.0)
    spent = [0.0]

    def add(event):
        before = spent[0]
        spent[0] += event.cost or 0.0
        if before <= max_usd < spent[0]:
            g.notify(f"cost limit: ${spent[0]:.2f} spent of ${max_usd:.2f}", "warning")

    def block(event):
        if spent[0] > max_usd:
            return f"the cost limit of ${max_usd:.2f} is spent; stop and summarize for the user"

    g.on("usage", add)
    g.on("tool_call", block)
