"""`fisim policies`: who can play, from the policies' specs (policies/specs.py), or one policy resolved."""
import click


@click.command()
@click.argument("name", required=False)
def policies(name):
    """List the built-in policies, weakest first on the skill ladder, and how to compose a search;
    or resolve one (NAME may be search:N/BASE or a policy file, to check it) and say what plays."""
    from fisim.defaults import POLICY
    from policies import CLAIRVOYANT_NOTE, LADDER, PUBLISHED, SPECS, resolve
    if name is not None:
        policy = resolve(name)
        click.echo(f"{policy.label}: {policy.spec.summary}")
        for played in policy.plays:
            click.echo(f"  plays its rollouts with {played.label}")
        click.echo(f"  {'draws on' if policy.spec.stochastic else 'never draws on'} its random stream; "
                   f"code and data digest {policy.digest[:16]}")
        return
    for spec in SPECS:
        name = f"{spec.name}:N" if spec.parameter else spec.name
        marks = [m for m, on in (("default", spec.name == POLICY), ("published reports", spec.name == PUBLISHED),
                                 (CLAIRVOYANT_NOTE, spec.sees_decks)) if on]
        click.echo(f"{name:<14}{spec.summary}" + (f" [{', '.join(marks)}]" if marks else ""))
        if spec.parameter:
            p = spec.parameter
            click.echo(f"{'':<14}N: {p.what}, {p.lowest} to {p.highest} (default {p.default})")
    click.echo(f"\nsearch:N/BASE searches over BASE, a built-in above or a policy .py file (search:8/planner, "
               f"search:16/my_policy.py).\nThe skill ladder (fisim ladder), weakest first: {', '.join(LADDER)}.\n"
               "docs/policies.md: writing a policy of your own.")
