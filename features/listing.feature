Feature: Listing events
  Anyone may list the events. What the list offers depends on the caller:
  a caller with a valid access token is also offered the link to create an
  event. A long list is cut into pages linked by "next" and "prev".

  A page "offers the caller exactly what they may do" when it links to
  itself, to its documentation ("profile") and to a template for reading
  one event ("get-an-event"), offers "create-new-event" to a caller with a
  valid token and to nobody else, and none of the events it lists offers
  "update-event" to a caller who does not manage that event. Every page
  does, whatever its paging parameters.

  To check paging on a target whose list fits one page, the user creates
  events until it has two; a read-only run cannot, and reports paging as
  not checked.

  @spec @API-2 @SVC-5
  Scenario: Anyone can list the events without a token
    When a caller lists the events
    Then the answer has status 200

  @spec @API-3 @SVC-3
  Scenario: An anonymous caller is offered reading links only
    When a caller lists the events
    Then the answer offers the links "self, profile, get-an-event"
    And the answer does not offer the link "create-new-event"

  @spec @API-4 @SVC-3
  Scenario: A caller with a valid token is also offered to create an event
    When the user lists the events
    Then the answer offers the links "self, profile, get-an-event, create-new-event"

  @spec @API-2 @API-3
  Scenario: A caller with an invalid token is served as anonymous
    When a caller with an invalid token lists the events
    Then the answer has status 200
    And the answer offers the caller exactly what they may do

  @spec @API-3 @API-4 @API-10 @SVC-3
  Scenario: Every page offers each caller exactly what they may do
    Given the event list has more than one page
    When a caller walks through the event list by following its "next" links
    Then every page offers the caller exactly what they may do
    When a caller with an invalid token walks through the event list by following its "next" links
    Then every page offers the caller exactly what they may do
    When the user walks through the event list by following its "next" links
    Then every page offers the caller exactly what they may do
    And every link of every page leads where its relation says

  @spec @API-3 @API-4
  Scenario: Pages of a size the target was not asked for before offer the caller exactly what they may do
    Given the event list has more than one page
    When the user walks through the event list with a page size of its own
    Then every page offers the caller exactly what they may do

  @spec @SVC-2 @SVC-3 @API-3 @API-4 @API-8 @API-10
  Scenario: Each event of the list is HAL, links to itself, and offers each caller nothing they may not do
    Given the user manages an event
    When a caller lists the events
    Then every event it lists is a HAL resource too
    And the first and the last event it lists, and those the scenario made, link to themselves
    And the answer offers the caller exactly what they may do
    When the user lists the events
    Then the answer offers the caller exactly what they may do
    When the other user lists the events
    Then the answer offers the caller exactly what they may do

  @spec @API-5
  Scenario: Paging links lead through every event once, forward and back
    Given the event list has more than one page
    When a caller walks through the event list by following its "next" links
    Then the first page has no "prev" link
    And the last page has no "next" link
    And no event is listed on two pages
    And every event created for it is listed
    And following "prev" from each later page leads back to the page before it
    And the first page, reached through "prev", has no "prev" link

  @spec @API-5
  Scenario: A list whose last page is full has no "next" there
    Given the event list fills its last page exactly
    When a caller walks through the event list by following its "next" links
    Then every page reached through "next" lists events
    And the last page has no "next" link

  @ref @API-5 @API-11 @local
  Scenario: The reference server pages by "page" and "size"
    Given the user has created 5 events
    When a caller lists the events with the query "size=2"
    Then the page holds 2 events
    And the page reports 5 events in 3 pages, this being page 0
    And the answer offers the links "first, self, next, last"
    And the answer does not offer the link "prev"
    When the caller follows the "next" link
    Then the page holds 2 events
    And the answer offers the links "first, prev, self, next, last"
    When the caller follows the "last" link
    Then the page holds 1 event
    And the page reports 5 events in 3 pages, this being page 2
    And the answer offers the link "prev"
    And the answer does not offer the link "next"

  @ref @API-11 @local
  Scenario: The reference server sorts by any event property
    Given the user has created events named "Bravo, Alpha, Charlie"
    When a caller lists the events with the query "sort=name,desc"
    Then the events are listed in the order "Charlie, Bravo, Alpha"
    When a caller lists the events with the query "sort=name,asc"
    Then the events are listed in the order "Alpha, Bravo, Charlie"

  @ref @API-11 @API-10 @writes
  Scenario: Each listed event links to itself, and the event link is a template
    Given the user has created an event
    When a caller lists the events
    Then every event it lists links to itself
    And the "get-an-event" link is a URI template

  @ref @API-11 @SVC-3
  Scenario Outline: The reference server tells caches that the list depends on the caller
    When <caller> lists the events
    Then the answer varies with "Authorization"
    And the answer's Cache-Control says "<cache>"

    Examples:
      | caller   | cache    |
      | a caller | no-cache |
      | the user | no-store |

  @ref @API-11
  Scenario Outline: Bad paging parameters are refused
    When a caller lists the events with the query "<query>"
    Then the answer is a validation error on "<field>"

    Examples:
      | query             | field |
      | page=-1           | page  |
      | page=first        | page  |
      | size=0            | size  |
      | size=101          | size  |
      | size=1001         | size  |
      | size=ten          | size  |
      | sort=nosuch,asc   | sort  |
      | sort=name,upwards | sort  |
