from fisim.cli import program

program()
