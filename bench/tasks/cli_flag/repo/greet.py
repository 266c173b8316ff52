"""greet.py NAME — print a greeting."""

import argparse


def main() -> None:
    parser = argparse.ArgumentParser(description="Print a greeting.")
    parser.add_argument("name")
    args = parser.parse_args()
    message = f"Hello, {args.name}!"
    print(message)


if __name__ == "__main__":
    main()
