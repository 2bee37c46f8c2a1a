from fisim.cli import main

main()
