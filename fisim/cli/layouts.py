"""`fisim layouts`: the built-in islands, or one drawn."""
import click


@click.command()
@click.argument("name", required=False)
def layouts(name):
    """List the built-in islands, or draw one (NAME may also be a layout file, to check it)."""
    from fisim.rules.layouts import BUILTIN_NAMES, builtin_layout, load_layout
    if name is None:
        for n in BUILTIN_NAMES:
            shape = builtin_layout(n)
            click.echo(f"{n:<26}{len(shape.rows[0])}x{len(shape.rows)}")
        return
    shape = load_layout(name)
    click.echo(f"{shape.name}: {len(shape.cells)} tiles, "
               f"{'one connected island' if shape.connected else 'NOT one connected island'}")
    click.echo(shape.draw())
