print("stepwise")
